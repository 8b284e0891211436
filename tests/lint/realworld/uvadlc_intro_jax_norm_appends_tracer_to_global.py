# source: https://github.com/phlippe/uvadlc_notebooks/blob/0da8037c7abc32f478ff6142acceb72dbcf088ee/docs/tutorial_notebooks/JAX/tutorial2/Introduction_to_JAX.ipynb
#   (UvA Deep Learning course, JAX tutorial 2 "Introduction to JAX+Flax", "Invalid function
#   with side-effect": cells 34 (the input `inp`) and 38; the imports are cell 4)
# observed on jax 0.10.2 CPU: tracing `norm` with `jax.make_jaxpr` appends the tracer for `x`
#   to `global_list`: the list ends up holding a leaked tracer, not the input array, and
#   the jaxpr does not contain the append.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

inp = jnp.arange(3, dtype=jnp.float32)

global_list = []

# Invalid function with side-effect
def norm(x):
    global_list.append(x)  # expect: JIT202
    x = x ** 2
    n = x.sum()
    n = jnp.sqrt(n)
    return n

jax.make_jaxpr(norm)(inp)


if __name__ == "__main__":
    # observed: line 17 stores the trace-time tracer in the global list
    assert len(global_list) == 1
    assert isinstance(global_list[0], jax.core.Tracer), type(global_list[0])
