# source: https://github.com/jax-ml/jax/issues/9374
# observed on jax 0.10.2 CPU: jax.grad(g)(1.0, 1.0) runs and prints f, f_jvp: the
#   custom_jvp function with a nondiff_argnum inside lax.cond no longer leaks a tracer.
#   Added: nothing. The print in f is the reporter's trace-time marker; it runs although
#   the cond selects the other branch (tolerated).
# gap: other
import jax
import jax.lax as lax
import functools as ft

@ft.partial(jax.custom_jvp, nondiff_argnums=(0,))
def f(x, y):
    print("f")  # tolerate: JIT203
    return y

@f.defjvp
def f_jvp(x, y, tang_y):
    print("f_jvp")
    x + 1  # Crashes on this line
    (y,) = y
    (tang_y,) = tang_y
    return y, tang_y

def g(y, x):
    return lax.cond(x < y, f, lambda _x, _y: _y, x, y)

jax.grad(g)(1.0, 1.0)
