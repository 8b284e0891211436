# source: https://github.com/jax-ml/jax/blob/00f5ef2ac0f49f4c963897dbde1fc2755e461432/docs/notebooks/Common_Gotchas_in_JAX.md
#   ("JAX - The Sharp Bits", section "Pure functions": the three impure examples)
# observed on jax 0.10.2 CPU: "Executing function" is printed by the first and the third
#   call only (the second reuses the compiled function); the second call of
#   impure_uses_globals returns 5.0, not 15.0, because g = 0. was baked in at the first
#   trace (the third call, with a new shape, retraces and sees g = 10.); and after
#   impure_saves_global the global g holds a tracer. The notebook cells are run in __main__
#   under redirect_stdout so that their printed output can be checked; matplotlib imports
#   are dropped.
# gap: stale-state-attributes
import contextlib
import io

import numpy as np
from jax import grad, jit
from jax import lax
from jax import random
import jax
import jax.numpy as jnp


def impure_print_side_effect(x):
  print("Executing function")  # This is a side-effect  # expect: JIT203
  return x


g = 0.
def impure_uses_globals(x):
  return x + g  # expect: JIT201


def impure_saves_global(x):
  global g
  g = x  # expect: JIT202
  return x


if __name__ == "__main__":
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # The side-effects appear during the first run  
        print ("First call: ", jit(impure_print_side_effect)(4.))

        # Subsequent runs with parameters of same type and shape may not show the side-effect
        # This is because JAX now invokes a cached compilation of the function
        print ("Second call: ", jit(impure_print_side_effect)(5.))

        # JAX re-runs the Python function when the type or shape of the argument changes
        print ("Third call, different type: ", jit(impure_print_side_effect)(jnp.array([5.])))
    lines = out.getvalue().splitlines()
    # observed: line 23 prints at trace time only: twice for three calls
    assert lines.count("Executing function") == 2, lines

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # JAX captures the value of the global during the first run
        print ("First call: ", jit(impure_uses_globals)(4.))
        g = 10.  # Update the global

        # Subsequent runs may silently use the cached value of the globals
        print ("Second call: ", jit(impure_uses_globals)(5.))

        # JAX re-runs the Python function when the type or shape of the argument changes
        # This will end up reading the latest value of the global
        print ("Third call, different type: ", jit(impure_uses_globals)(jnp.array([4.])))
    lines = out.getvalue().splitlines()
    # observed: line 29 reads g at trace time: the second call returns 5.0, not 15.0
    assert lines[1].split() == ["Second", "call:", "5.0"], lines
    assert lines[2].endswith("[14.]"), lines

    g = 0.
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # JAX runs once the transformed function with special Traced values for arguments
        print ("First call: ", jit(impure_saves_global)(4.))
        print ("Saved global: ", g)  # Saved global has an internal JAX value
    # observed: line 34 leaves a tracer in the global g
    assert isinstance(g, jax.core.Tracer)
