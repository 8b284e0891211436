# source: https://github.com/jax-ml/jax/issues/3603
# observed on jax 0.10.2 CPU: `jax.jit(do_stuff)(10)` raises ConcretizationTypeError (the
#   `length` argument to `scan` expects a concrete int): jit traces the Python int 10.
# gap: omnistaging
import jax

def do_stuff(length):
    def f(carry,x):
        return carry, [None]

    jax.lax.scan(f,[1], xs=None, length=length)  # expect: JIT404

jax.jit(do_stuff)(10)
