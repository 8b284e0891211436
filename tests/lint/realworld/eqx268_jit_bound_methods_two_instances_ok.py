# source: https://github.com/patrick-kidger/equinox/issues/268
# observed on jax 0.10.2 CPU: with equinox 0.13.8 runs clean: jitf2 reuses jitf1's trace
#   (same function), and jax.jit(m2.foo) traces again, which is what makes it return 2*x
#   rather than m1's 1*x: the bound method closes over a different `self`. The report's
#   `assert hash(m1.foo) == hash(m2.foo)` no longer holds with equinox 0.13.8 and is
#   dropped; imports and the value checks in __main__ are added. The prints show tracing
#   on purpose.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import equinox as eqx

# Let's define a closure
y = 1.
def foo(x):
    print("Tracing!")
    return y * x

# Let's jit the same function, which of course will have the same hash, i.e. `hash(foo) == hash(foo)`
jitf1 = jax.jit(foo)
jitf2 = jax.jit(foo)
jitf1(0.)  # this will print "Tracing!"
jitf1(0.)  # this won't
jitf2(0.)  # this won't either


class MyModule(eqx.Module):
    y: jnp.ndarray
    def foo(self, x):
        print("Tracing!")
        return self.y * x
    
m1 = MyModule(y=1.)
m2 = MyModule(y=2.)
assert hash(m1) != hash(m2)   # `eqx.Module` implements its own `__hash__` so that their hashes are the same iif their PyTree leaves are the same.

eqx_jitf1 = jax.jit(m1.foo)
eqx_jitf2 = jax.jit(m2.foo)
eqx_jitf1(0.)  # this will print "Tracing!"
eqx_jitf1(0.)  # this won't print
eqx_jitf2(0.)  # this will print "Tracing!"

if __name__ == "__main__":
    assert float(eqx_jitf1(3.)) == 3.0
    assert float(eqx_jitf2(3.)) == 6.0
