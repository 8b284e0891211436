# source: https://github.com/google/flax/issues/3863
# observed on jax 0.10.2 CPU: no error; the `print(x.x)` inside the jitted `f` runs only while `f` is traced: f(c), f(d), f(c) print "1" and "2" and nothing for the third call, which reuses the cached trace
# gap: other
# (renamed old APIs: `from flax.experimental import nnx` -> `from flax import nnx`, and `class C(nnx.Module, experimental_pytree=True)` -> `class C(nnx.Module, pytree=True)`, the flax 0.12 spelling; the user's module-level calls are moved into a __main__ block that captures what is printed)
import contextlib
import io

from flax import nnx
from jax import jit
from jax.tree import flatten


class C(nnx.Module, pytree=True):
    def __init__(self, x):
        self.x = x


c = C(1)
d = C(2)

values, tree, = flatten(c)
valuesd, treed, = flatten(d)


@jit
def f(x):
    print(x.x)  # expect: JIT203


if __name__ == "__main__":
    print(hash(tree), hash(treed), tree, treed, values, valuesd)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        f(c)
        f(d)
        f(c)
    printed = buf.getvalue().split()
    print("printed inside f over three calls:", printed)
    # observed: line 27 the print runs at trace time only: three calls print ['1', '2'], the third call f(c) prints nothing
    assert printed == ["1", "2"], printed
