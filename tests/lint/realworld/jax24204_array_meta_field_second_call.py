# source: https://github.com/jax-ml/jax/issues/24204 (jakevdp's stripped-down repro in the
#   thread)
# observed on jax 0.10.2 CPU: the first call runs; `func(foo2)` raises ValueError when jit
#   compares the static (meta) field of foo2 with foo1's, two arrays whose `==` gives an
#   array of truth values. An array is not a valid static field.
# gap: static-hashability
import jax
from dataclasses import dataclass

@dataclass
class Foo:
  a: jax.Array
jax.tree_util.register_dataclass(Foo, data_fields=[], meta_fields=['a'])

func = jax.jit(lambda x: x)
foo1 = Foo(jax.numpy.arange(4))
func(foo1)  # no error

foo2 = Foo(jax.numpy.arange(4))
func(foo2)  # error during check of foo1 == foo2  # expect: JIT302
