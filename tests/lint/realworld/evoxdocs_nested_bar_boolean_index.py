# source: https://evox.readthedocs.io/en/v0.9.1-dev/_sources/guide/developer/2-jit-able.md
# observed on jax 0.10.2 CPU: foo(jnp.array([-1.0, 2.0, 3.0])) raises
#   NonConcreteBooleanIndexError in bar at `return x[x > 0]`: bar is not jitted itself, but
#   it is traced as part of the jitted foo, and a boolean mask made from a tracer gives an
#   output of data-dependent size. The guide shows this as "a common pitfall in jit".
#   Added: the call in __main__.
# gap: omnistaging
import jax
import jax.numpy as jnp


@jax.jit
def foo(x):
    return bar(x)

def bar(x):
    return x[x > 0] # dynamic index, not jit-able  # expect: JIT403


if __name__ == "__main__":
    foo(jnp.array([-1.0, 2.0, 3.0]))
