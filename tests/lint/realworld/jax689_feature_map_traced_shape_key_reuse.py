# source: https://github.com/jax-ml/jax/pull/689 (the user code quoted in the description)
# observed on jax 0.10.2 CPU: under jit, random.normal raises TypeError (Shapes must be 1D
#   sequences of concrete values) at W: `d` and `n` are traced arguments. Run without jit,
#   the one key is consumed three times: w repeats the first draws of W exactly, and b is
#   computed from the same random bits as w (w > 0 exactly where b > pi). `np` is
#   jax.numpy in the report.
# gap: other
import jax.numpy as np
from jax import jit, random

@jit
def feature_map(n, d, sigma=1.0, seed=123):
  key = random.PRNGKey(seed)
  W = random.normal(key, (d, n)) / sigma  # expect: JIT404
  w = random.normal(key, (d, )) / sigma  # expect: JIT502  # tolerate: JIT404
  b = 2 * np.pi * random.uniform(key, (d, ))  # expect: JIT502  # tolerate: JIT404

  phi = lambda x, t: np.sqrt(2.0 / d) * np.cos(np.matmul(W, x) + w*t + b)
  return phi


if __name__ == "__main__":
    import traceback

    try:
        phi = feature_map(5, 3)
    except TypeError as e:
        here = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
    else:
        raise AssertionError("feature_map traced without error")
    # observed: line 14 raises under jit: the shape (d, n) holds traced arguments
    assert here[-1] == 14, here

    phi = feature_map.__wrapped__(5, 3)
    cells = dict(zip(phi.__code__.co_freevars, (c.cell_contents for c in phi.__closure__)))
    W, w, b = cells["W"], cells["w"], cells["b"]
    # observed: line 15 draws the same numbers as the first draws of W (same key)
    assert (w == W.ravel()[:3]).all()
    # observed: line 16 uses the same random bits again: w > 0 exactly where b > pi
    assert ((w > 0) == (b > np.pi)).all()
