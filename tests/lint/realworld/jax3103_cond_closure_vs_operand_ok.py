# source: https://github.com/jax-ml/jax/issues/3103 (mattjj's two versions of f in the
#   comments: branches that close over x with an empty operand, then branches given x as
#   their operand)
# observed on jax 0.10.2 CPU: both versions run clean under jit and pick sin for x > 0 and
#   cos otherwise: the traced predicate goes to lax.cond (the old five-argument form
#   cond(pred, true_operand, true_fun, false_operand, false_fun) is still accepted), never
#   to a Python `if`; the second `def f` rebinds the name.
#   Added: the imports, `f_closure = f` (to keep the first version once the name is
#   rebound) and the __main__ block.
# gap: flow-sensitive
import jax.numpy as np
from jax import jit, lax


@jit
def f(x):
  return lax.cond(x > 0,
                  (), lambda _: np.sin(x),
                  (), lambda _: np.cos(x))

f_closure = f


@jit
def f(x):
  return lax.cond(x > 0,
                  x, lambda x: np.sin(x),
                  x, lambda x: np.cos(x))


if __name__ == "__main__":
    for g in (f_closure, f):
        assert np.allclose(g(1.0), np.sin(1.0))
        assert np.allclose(g(-1.0), np.cos(-1.0))
