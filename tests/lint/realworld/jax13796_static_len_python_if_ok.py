# source: https://github.com/jax-ml/jax/issues/13796 (the maintainer's answer)
# observed on jax 0.10.2 CPU: runs clean: `len(x) > 1` is a Python bool while tracing, so a
#   Python conditional stops the recursion at trace time (the report's lax.cond traced
#   both branches and recursed into an empty slice). return_z is the report's helper.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def return_z(x):
    x = x.at[0].set(0)
    x = x.at[1:].set(rec(x[1:]))
    return x

@jax.jit
def rec(x):
    return return_z(x) if len(x) > 1 else 0


if __name__ == "__main__":
    out = rec(jnp.arange(30))
    assert out.shape == (30,) and int(out.sum()) == 0
