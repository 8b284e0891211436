# source: https://github.com/jax-ml/jax/issues/1426
# observed on jax 0.10.2 CPU: the second assert fails: the jitted gradient keeps a = 10,
#   the value the closure had when it was traced (without jit it sees a = 20).
#   `np` is jax.numpy in the report.
# gap: stale-state-attributes
import jax
import jax.numpy as np


def test_retain():
    a = 10
    def loss_sum(val):
        loss = np.sum(val[:2]**2 + val[2:]**3) * a  # expect: JIT201
        return loss
    grad = jax.jit(jax.grad(loss_sum))     # added JIT
    gs = grad(np.array([2, 3, 4, 5], dtype=float))
    assert np.allclose(gs, np.array([  40.,  60.,  480., 750.]))
    a = 20
    gs = grad(np.array([2, 3, 4, 5], dtype=float))
    assert np.allclose(gs, np.array([  80.,  120.,  960., 1500.])) # fails


if __name__ == "__main__":
    try:
        test_retain()
    except AssertionError:
        pass
    else:
        raise AssertionError("the jitted gradient saw the new value of a")
    # observed: line 13 reads a closed-over variable that is rebound after tracing
