# source: https://github.com/jax-ml/jax/pull/16949 (the example in the description)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `bool(x)` in g: g is grad'ed
#   inside the jitted f, so x is a tracer of jit as well as of grad.
# gap: exemption-vs-JAX
import jax

@jax.grad
def g(x):
    bool(x)  # not valid code  # expect: JIT401

@jax.jit
def f(x):
    return g(x)

f(1.)
