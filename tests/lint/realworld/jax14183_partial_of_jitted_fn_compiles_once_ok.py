# source: https://github.com/jax-ml/jax/issues/14183
# observed on jax 0.10.2 CPU: runs clean. `some_function` is jitted once at module level;
#   the `Partial` built inside `test_compilation` wraps that same jitted function, so its
#   call traces once more (the `parameter=1` keyword is a new call signature) and then hits
#   jit's cache: calling `test_compilation()` again compiles nothing new (checked with
#   `some_function._cache_size()`). The calls in `__main__` are added; `import jax` added.
# gap: per-call-recompile
import jax
from jax.tree_util import Partial

@jax.jit
def some_function(x,parameter):
    return x+parameter

def test_compilation():
    some_function(1,1) #compiles
    patial_function = Partial(some_function, parameter=1)
    patial_function(1) #compiles again
    patial_function(1)
    return


if __name__ == "__main__":
    test_compilation()
    first = some_function._cache_size()
    for _ in range(5):
        test_compilation()
    assert first == 2, first
    assert some_function._cache_size() == first, some_function._cache_size()
