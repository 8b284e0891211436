# source: https://github.com/patrick-kidger/equinox/issues/1110
# observed on jax 0.10.2 CPU: with equinox 0.13.8, replacing the array field `a` by
#   `eqx.tree_at` with one of the same shape and dtype does not retrace `some_fn`: the
#   reporter's RuntimeError came from `eqx.debug.assert_max_traces` stacked *outside*
#   `eqx.filter_jit`, where it counts calls, not traces. Here the two decorators are in the
#   order equinox documents (`assert_max_traces` inside `filter_jit`); with it both calls
#   run clean and `some_fn` is traced once. The `print` calls of the report are kept as
#   they are (outside any trace); the `__main__` check is added.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import equinox as eqx

class MockGE(eqx.Module):
    """A mock class"""
    num_iterations: int
    a: jax.Array

    def calc(self, x):
        return x * jnp.sum(self.a) + self.num_iterations
    
ge = MockGE(num_iterations=10, a=jnp.array([1.0, 2.0, 3.0]))

@eqx.filter_jit
@eqx.debug.assert_max_traces(max_traces=1)
def some_fn(x, ge):
    return ge.calc(x)

x = jnp.array([1.0, 2.0, 3.0])
print(some_fn(x, ge))

ge = eqx.tree_at(lambda x: x.a, ge, jnp.array([4.0, 5.0, 6.0]))
print(some_fn(x, ge))


if __name__ == "__main__":
    out = some_fn(x, ge)
    assert jnp.allclose(out, x * 15.0 + 10)
