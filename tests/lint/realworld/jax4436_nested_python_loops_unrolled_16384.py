# source: https://github.com/jax-ml/jax/issues/4436
# observed on jax 0.10.2 CPU: foo(a) returns 0, but tracing runs the two Python loops, so
#   the jitted program records 16,384 copies of `a[0]` (32,768 equations: a slice and a
#   squeeze each) for a function whose result uses none of them; the first call takes about
#   a second here (the report saw 15 to 35 s). Added: the equation count in `__main__`.
# gap: other
import jax
import jax.numpy as jnp
from jax import jit

@jit
def foo(a):
	for i in range(128):
		for j in range(128):  # expect: JIT303
			s = a[0]
	return 0

 
a = jnp.zeros(128)
foo(a)

if __name__ == "__main__":
    # observed: line 14 unrolls 128 x 128 iterations into the traced program
    jaxpr = jax.make_jaxpr(foo.__wrapped__)(a)
    assert len(jaxpr.jaxpr.eqns) == 2 * 128 * 128
    assert int(foo(a)) == 0
