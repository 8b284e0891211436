# source: https://github.com/jax-ml/jax/issues/28225
# observed on jax 0.10.2 CPU: `mock_fn_vec` reads the module global `mock_fn`, which the
#   script rebinds from `lambda x: x` to `lambda x: -x`. Wrapping the same `mock_fn_vec` in
#   `jax.jit` a second time does not retrace: jit's cache is keyed on the function object, so
#   the second `mock_fn_vec_jit(vec_input)` still returns [1 1] while the plain call returns
#   [-1 -1].
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

# initialise mock input and vmap mock function
vec_input = jnp.array([1,1])
def mock_fn_vec(x):
    return jax.vmap(mock_fn)(x)  # expect: JIT201

# define mock function and jit version of mock function
mock_fn = lambda x: x
mock_fn_vec_jit = jax.jit(mock_fn_vec)

print(mock_fn_vec_jit(vec_input))
print(mock_fn_vec(vec_input))


# overwrite mock function and jit version of mock function
mock_fn = lambda x: -x
mock_fn_vec_jit = jax.jit(mock_fn_vec)

print(mock_fn_vec_jit(vec_input)) # these last lines do not give the same result
print(mock_fn_vec(vec_input))


if __name__ == "__main__":
    stale = mock_fn_vec_jit(vec_input)
    fresh = mock_fn_vec(vec_input)
    # observed: line 14 keeps the first `mock_fn` in the jitted trace after the global is rebound
    assert jnp.array_equal(stale, jnp.array([1, 1])), stale
    assert jnp.array_equal(fresh, jnp.array([-1, -1])), fresh
