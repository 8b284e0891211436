# source: https://github.com/google/flax/issues/4113
# observed on jax 0.10.2 CPU (flax 0.12.8): runs clean. The reporter suspected the jitted
#   `res.apply` of an `nn.Sequential` of a residual Conv block (odd output statistics, a GPU
#   buffer-comparator message on the first run); on CPU the jitted call matches the un-jitted
#   `res.apply` on the same inputs, and the batch of 40 after an init with 20 is only a new
#   shape, traced once. Added: the imports (`jr` is jax.random) and the `__main__` check.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import jax.random as jr
import flax.linen as nn


class ResBlock(nn.Module):
    c_in: int
    c_out: int

    @nn.compact
    def __call__(self, h, ):
        hr = h
        h = nn.Conv(features=self.c_out, kernel_size=(3, 3), strides=(1, 1), padding='SAME')(h)
        return h+hr
    
res = nn.Sequential([ResBlock(32, 32)])
p = res.init(jr.PRNGKey(12), jnp.ones((20, 32, 32, 32)))

@jax.jit
def apply_f(p, ip):
    return res.apply(p, ip)

x = apply_f(p, jnp.ones((40, 32, 32, 32)))


if __name__ == "__main__":
    ip = jr.normal(jr.PRNGKey(0), (40, 32, 32, 32))
    assert jnp.allclose(apply_f(p, ip), res.apply(p, ip), atol=1e-4)
    assert apply_f._cache_size() == 1
