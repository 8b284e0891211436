# source: https://github.com/jax-ml/jax/issues/19570 (the workaround in the description)
# observed on jax 0.10.2 CPU: runs clean: `self.f = self.f` stores one bound method on the
#   instance, so both `jax.jit(foo.f)` see the same function object and the second lower
#   hits jit's cache; f is traced once and the reporter's assert holds. Added: the
#   __main__ check. The print in f is the reporter's trace-time marker (tolerated).
# gap: per-call-recompile
import jax

class Foo:
  def __init__(self):
    self.f_traced = False
    self.f = self.f  # Ensure `jit(self.f)` sees the same bound method instance.

  def f(self):
    print('f')  # tolerate: JIT203
    assert not self.f_traced
    self.f_traced = True

foo = Foo()
jax.jit(foo.f).lower()
jax.jit(foo.f).lower()  # Does not fail.


if __name__ == "__main__":
    jax.jit(foo.f).lower()
    assert foo.f_traced
