# source: https://crackedaicode.com/problems/jax-jit-of-scan
#   (the "Worked mini-example")
# observed on jax 0.10.2 CPU: runs clean; scan_product compiles on its first call and
#   returns the running product [1., 2., 6., 24.]. Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
from jax import lax
@jax.jit
def scan_product(x):
    """Running product via scan, compiled with jit."""
    def step(carry, xi):
        return carry * xi, carry * xi
    _, ys = lax.scan(step, 1.0, x)
    return ys
scan_product(jnp.array([1.0, 2.0, 3.0, 4.0]))
# → [1., 2., 6., 24.] (compiled on first call)

if __name__ == "__main__":
    assert jnp.array_equal(scan_product(jnp.array([1.0, 2.0, 3.0, 4.0])),
                           jnp.array([1.0, 2.0, 6.0, 24.0]))
