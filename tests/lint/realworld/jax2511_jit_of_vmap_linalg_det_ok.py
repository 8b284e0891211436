# source: https://github.com/jax-ml/jax/issues/2511
# observed on jax 0.10.2 CPU: jit of a lambda that vmaps np.linalg.det over a batch of
#   2x2 matrices runs clean and returns five determinants of 0. In March 2020 it raised an
#   internal escaped-tracer error (det's custom derivative rule under vmap under jit); the
#   report's `np` is jax.numpy (as in the jax tests of the time: the bug was in jax's det),
#   and `api.jit` is spelled jax.jit. Added: the imports and the check in __main__.
# gap: types
import jax
import jax.numpy as np

arr = np.ones((5, 2, 2))
foo = lambda x: jax.vmap(np.linalg.det, (0,))(x)
jax.jit(foo)(arr)

if __name__ == "__main__":
    out = jax.jit(foo)(arr)
    assert out.shape == (5,) and bool(np.allclose(out, 0.0))
