# source: https://github.com/deepmodeling/jax-fem/blob/5acbb5868d87f36d743424dcb2b3938370d5c97c/jax_fem/experimental/jit_global.py
#   (jax-fem's experiment on jitted functions that read parameters from an object, added in
#   commit 5acbb58, verbatim; the script's prints run at import as written, and the
#   __main__ block checks what they left behind)
# observed on jax 0.10.2 CPU: A.get_fn jits a closure with no arguments that reads self.E,
#   so its first call freezes E = 10.0 into the program: jax.grad(test_fn_a)(10.0) prints
#   0.0 instead of 1.0, and test_fn_a(20.0) still returns 10.0. set_params stores the
#   traced E on the object: after the grad, a.E is a leaked JVP tracer, and after
#   test_fn_b (jitted) b.E is a leaked jit tracer. test_fn_b's own results are right
#   (10.0, 1.0, 20.0, 1.0) because it reads E through its argument.
# gap: stale-state-attributes
import jax.numpy as np
import jax

class A:
    def __init__(self):
        self.f = self.get_fn()

    def get_fn(self):
        @jax.jit
        def f():
            return self.E  # expect: JIT201
        return f

    def set_params(self, E):
        self.E = E  # expect: JIT202

a = A()

def test_fn_a(E):
    a.set_params(E)
    return a.f()

E_a = 10.

print(test_fn_a(E_a))
print(jax.grad(test_fn_a)(E_a))


class B:
    def f(self):
        return self.E

    def set_params(self, E):
        self.E = E  # expect: JIT202

b = B()

@jax.jit
def test_fn_b(E):
    b.set_params(E)
    return b.f()

E_b = 10.

print(test_fn_b(E_b))
print(jax.grad(test_fn_b)(E_b))

E_b = 20.

print(test_fn_b(E_b))
print(jax.grad(test_fn_b)(E_b))


if __name__ == "__main__":
    # observed: line 22 returns the E frozen at the first call: zero gradient, stale value
    assert float(jax.grad(test_fn_a)(10.0)) == 0.0
    assert float(jax.grad(test_fn_a)(3.0)) == 0.0
    # observed: line 26 leaves the grad's tracer on `a` after jax.grad(test_fn_a)
    assert isinstance(a.E, jax.core.Tracer), type(a.E)
    assert float(test_fn_a(20.0)) == 10.0
    # observed: line 45 leaves the jit trace's tracer on `b` after test_fn_b
    assert isinstance(b.E, jax.core.Tracer), type(b.E)
    assert float(test_fn_b(30.0)) == 30.0
