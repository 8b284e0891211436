# source: https://github.com/jax-ml/jax/issues/2912 (the reporter's example)
# observed on jax 0.10.2 CPU: UnexpectedTracerError at `return f(s, p)` in g: "Found a JAX
#   Tracer object passed as an argument to a custom_vjp function in a position indicated by
#   nondiff_argnums as non-differentiable". jit traces every argument of g, so the Python
#   float 0.2 bound by partial reaches f's nondiff position `s` as a tracer. (In the report,
#   on jax 0.1.66, it surfaced as "Different traces at same level".)
# gap: static-hashability
from jax import custom_vjp, jit, grad
from functools import partial


@partial(custom_vjp, nondiff_argnums=(0,))
def f(s, p):
    return 0.0


def fwd(s, p):
    return 0.0, ()


def bwd(s, residuals, f_bar):
    return s,


f.defvjp(fwd, bwd)


@jit
def g(s, p):
    return f(s, p)  # expect: JIT302  # tolerate: JIT401


print(grad(partial(g, 0.2))(0.1))
