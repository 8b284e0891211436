# source: https://github.com/patrick-kidger/equinox/issues/325
# observed on jax 0.10.2 CPU with equinox 0.13.8: both of the reporter's snippets run clean.
#   The first (from the JAX AOT documentation) lowers and compiles jax.jit(f) once at module
#   level and calls the compiled function; the second does the same through eqx.filter_jit,
#   where Python ints stay static, which raised "function compiled for PyTreeDef..." until
#   the fix in this thread and now returns 10 as well. Added: the second snippet's names
#   suffixed _eqx so both snippets live in one file, and the __main__ block that checks the
#   results.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import numpy as np
import equinox as eqx

def f(x, y): return 2 * x + y
x, y = 3, 4

lowered = jax.jit(f).lower(x, y)

# Print lowered HLO
print(lowered.as_text())

# Compile function
compiled = lowered.compile()

# Execute the compiled function!
compiled(x, y)


lowered_eqx = eqx.filter_jit(f).lower(x, y)

# Print lowered HLO
print(lowered_eqx.as_text())

# Compile function
compiled_eqx = lowered_eqx.compile()

# Execute the compiled function!
compiled_eqx(x, y)


if __name__ == "__main__":
    assert int(compiled(x, y)) == 10
    assert int(compiled_eqx(x, y)) == 10
