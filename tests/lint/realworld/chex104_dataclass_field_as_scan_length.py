# source: https://github.com/google-deepmind/chex/issues/104
# observed on jax 0.10.2 CPU: do_scan(D(x=1.0, y=10)) raises ConcretizationTypeError at the
#   `scan` line ("The `length` argument to `scan` expects a concrete `int` value"): every
#   field of a chex.dataclass is a pytree leaf, so under jit `c.y` is a tracer, not the
#   Python int 10. The first print works: there `y` is a static field. Added: tjax is not
#   installed, so `tjax.dataclasses.dataclass`/`field(static=True)` are spelled with
#   flax.struct's `dataclass`/`field(pytree_node=False)` (a pytree dataclass whose field is
#   kept out of the leaves), and tjax's `IntegralNumeric`/`RealNumeric` annotations are
#   `int`/`float`.
# gap: types
from jax import jit
from jax.lax import scan
from flax.struct import dataclass, field
import chex

IntegralNumeric = int
RealNumeric = float


def f(carry, _):
  return carry + 1.0, None

@jit
def do_scan(c):
  final, _ = scan(f, c.x, None, c.y)  # expect: JIT404
  return final

@dataclass
class C:
  x: RealNumeric
  y: IntegralNumeric = field(pytree_node=False)

print(do_scan(C(1.0, 10)))  # works

@chex.dataclass
class D:
  x: RealNumeric
  y: IntegralNumeric

print(do_scan(D(x=1.0, y=10)))  # fails
