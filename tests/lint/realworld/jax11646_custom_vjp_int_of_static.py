# source: https://github.com/jax-ml/jax/issues/11646
# observed on jax 0.10.2 CPU: ConcretizationTypeError at `sq = int(x)` in do_something:
#   `x` is static for the outer jit, but custom_vjp traces its own arguments, so inside
#   the custom_vjp function `x` is a tracer. (On the JAX of the report the same code failed
#   with an IndexError.) The forward rule repeats the same `int(x)` and is tolerated: it
#   would raise the same way if it were reached first.
# gap: other
from functools import partial
import jax

@jax.custom_vjp
def do_something(z,x):
    sq = int(x)  # expect: JIT401
    return z**sq

def do_smth_fwd(z,x):
    sq = int(x)  # tolerate: JIT401
    return do_something(z,x), (z,sq)

def do_smth_bwd(residual, g):
    z,sq = residual
    return g*sq*z**(sq-1), None

do_something.defvjp(do_smth_fwd, do_smth_bwd)
    

@partial(jax.jit, static_argnums = (1))
def f(z,x):
    res = do_something(z,x)
    return res


gf = jax.grad(f)

gf(3.,2.)
