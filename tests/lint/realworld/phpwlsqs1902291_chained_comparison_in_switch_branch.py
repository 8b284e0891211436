# source: https://php.wlsqs.com/faq/1902291.html
#   (a Stack Overflow question retold on php.cn: the gradient of a function built with
#   jax.lax.switch, whose branch writes the condition as a chained comparison)
# observed on jax 0.10.2 CPU: grad(func, argnums=1)(1, 2.0) raises
#   TracerBoolConversionError at `0. < x < 1.` in func_0: lax.switch traces every branch,
#   so func_0 sees a tracer even though index 1 selects func_1, and the chained comparison
#   calls bool() on `0. < x`. The page quotes the failing form for func_0 only (commented
#   out above its fix); func_1 is as the page writes it. Added: nothing but the layout.
# gap: other
from jax.lax import switch
import jax.numpy as jnp
from jax import grad

func_0 = lambda x: jnp.where(0. < x < 1., x, 0.)  # expect: JIT103
func_1 = lambda x: jnp.where((0. < x) & (x < 1.), x, 1.)

func_list = [func_0, func_1]
func = lambda index, x: switch(index, func_list, x)

df = grad(func, argnums=1)(1, 2.0)
print(df)
