# source: https://github.com/jax-ml/jax/issues/15761 (the reporter's snippet; `time` calls
#   kept, the plot left out)
# observed on jax 0.10.2 CPU: runs clean: iterating over the traced `indices` unrolls over
#   its static length, `vec[j]` takes a traced index, and jnp.zeros(len(indices)) has a
#   static size; the function compiles once per new length (5, 8, 10), as the thread
#   explains, and the last two calls hit the cache.
# gap: exemption-vs-JAX
import time
import jax
import jax.numpy as jnp


# A dummy function
@jax.jit
def some_func(vec, indices):
    out = jnp.zeros(len(indices))

    for idx, j in enumerate(indices):
        out_j = vec[j]
        out = out.at[idx].set(out_j)

    return out


timings = []
x = jnp.ones(20)

for n_indices in [5, 8, 10, 10, 10]:
    # make a list of indices
    li = jnp.arange(n_indices)

    # time the execution of function
    start = time.perf_counter()
    some_func(x, li)
    end = time.perf_counter()

    timings.append(end - start)

if __name__ == "__main__":
    assert some_func(jnp.arange(20.0), jnp.array([3, 1])).tolist() == [3.0, 1.0]
