# source: https://github.com/patrick-kidger/equinox/issues/973 (the reporter's comparison;
#   the %timeit lines are left out)
# observed on jax 0.10.2 CPU (equinox 0.13.8): runs clean; both functions are jitted once,
#   at module level, and the loop calls them with the same shapes, so each traces once
#   (the __main__ block checks that fwd_jax holds one compiled entry).
# gap: per-call-recompile
import equinox as eqx
import jax
import jax.numpy as jnp


model = eqx.nn.Identity()
x = jnp.zeros((1,1))

@eqx.filter_jit
def fwd_eqx(m, x):
    return m(x)

@jax.jit
def fwd_jax(m, x):
    return m(x)

# Make sure everything is jit compiled
for _ in range(10):
    fwd_eqx(model, x)
    fwd_jax(model, x)


if __name__ == "__main__":
    assert fwd_jax._cache_size() == 1
    for _ in range(3):
        fwd_eqx(model, x).block_until_ready()
        fwd_jax(model, x).block_until_ready()
    assert fwd_jax._cache_size() == 1
