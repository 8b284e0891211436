# source: https://github.com/jax-ml/jax/issues/19314
# observed on jax 0.10.2 CPU: runs clean and returns max(u, x) for each element; under vmap
#   the cond with a batched predicate becomes a select, so both branches run and
#   jax.debug.print prints for every element, which the maintainers confirmed is the
#   intended behaviour (the values returned are right). Added: the __main__ block, which
#   runs the vmapped function under jax.jit and checks the values.
# gap: other
import jax

def f(x):
    key = jax.random.PRNGKey(123)
    u = jax.random.uniform(key)
    jax.lax.cond(u > x, lambda w,z: jax.debug.print("selecting u: {w}>{z}",w=w,z=z), lambda x,y: None, u, x)
    v = jax.lax.select(u > x, u, x)
    return v

vmapped = jax.vmap(f, in_axes=(0,))
key = jax.random.PRNGKey(1)
x_grid = jax.random.uniform(key, (4,))
vmapped(x_grid)


if __name__ == "__main__":
    import jax.numpy as jnp

    u = jax.random.uniform(jax.random.PRNGKey(123))
    out = jax.jit(vmapped)(x_grid)
    assert jnp.allclose(out, jnp.maximum(u, x_grid))
