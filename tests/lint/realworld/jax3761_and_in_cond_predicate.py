# source: https://github.com/jax-ml/jax/issues/3761
# observed on jax 0.10.2 CPU: cond_test_1 and cond_test_2_no_jit run; the jitted
#   cond_test_2 raises TracerBoolConversionError at `x < 0 and y < 0`, where `and` asks
#   for the truth value of the traced `x < 0`. The calls are the report's session.
# gap: other
import jax
from jax import jit

@jit
def true_fn(x):
    return x - 5000.0

@jit
def false_fn(x):
    return x + 100.0

@jit
def cond_test_1(x, y):
    return jax.lax.cond(x < 0, true_fn, false_fn, x)

@jit
def cond_test_2(x, y):
    return jax.lax.cond(x < 0 and y < 0, true_fn, false_fn, x)  # expect: JIT103

def cond_test_2_no_jit(x, y):
    return jax.lax.cond(x < 0 and y < 0, true_fn, false_fn, x)

print(cond_test_1(0.3, 0.1))
print(cond_test_2_no_jit(0.3, 0.1))
print(cond_test_2(0.3, 0.1))
