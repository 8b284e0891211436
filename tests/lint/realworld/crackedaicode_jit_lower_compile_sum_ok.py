# source: https://crackedaicode.com/problems/jax-jit-lower-compile (a JAX exercise site's
#   "Worked mini-example" of ahead-of-time compilation)
# observed on jax 0.10.2 CPU: runs clean: `jax.jit(jnp.sum)` is called with the array alone,
#   so no axis or other Python argument is traced; `.lower(x).compile()` returns 4.0 with
#   no further compilation. Added: the __main__ block, which checks the result and that the
#   compiled object refuses another shape, as the page's pitfalls say.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

x = jnp.ones(4)
f = jax.jit(jnp.sum)

# Compile once at "build time"
compiled = f.lower(x).compile()

# Fast path at "inference time"
result = compiled(x)   # → 4.0, no recompilation

if __name__ == "__main__":
    assert float(result) == 4.0
    assert float(f(x)) == 4.0
    try:
        compiled(jnp.ones(5))
    except (TypeError, ValueError):
        pass
    else:
        raise AssertionError("compiled accepted a new shape")
