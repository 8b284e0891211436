import jax
import jax.numpy as jnp


@jax.jit
def build_adjacency(edges, n):
    adj = jnp.zeros((16, 16))
    for k in range(edges.shape[0]):
        i, j = edges[k, 0], edges[k, 1]
        adj.at[i, j].set(1.0)  # expect: JIT503
        adj = adj.at[j, i].set(1.0)
    return adj


def fill_host(values):
    out = jnp.zeros(len(values))
    for i, v in enumerate(values):
        out = out.at[i].set(v)
    return out
