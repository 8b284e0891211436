# source: https://github.com/jax-ml/jax/issues/649
# observed on jax 0.10.2 CPU: runs clean and prints (7, 10). In 2019 the body's constant
#   first output (7, a Python int, against the traced carry) failed XLA's shape check;
#   lax.while_loop now lifts the constant to the carry's type. `cond` returns the traced
#   comparison for while_loop to use, no Python bool is taken. Added: nothing.
# gap: exemption-vs-JAX
from jax import lax

def body(x):
	a, b = x
	return (7, b + 1)

def cond(x):
	a, b = x
	return b < 10

print(lax.while_loop(cond, body, (33, 4))) 
