# source: https://github.com/google/flax/issues/5050 (the maintainers' answer: `copy=True`)
# observed on jax 0.10.2 CPU: with flax 0.12.8, runs clean: `nnx.merge(..., copy=True)` builds
#   the module from fresh Variables inside the trace of jax.grad, so the dropout's RNG count
#   it advances belongs to that trace. The reporter's snippet with the one change the thread
#   gives; the check of the gradient's structure is added.
# gap: stale-state-attributes
import flax.nnx as nnx
import jax
import jax.numpy as jnp

model = nnx.MultiHeadAttention(8,8,8,8, rngs = nnx.Rngs(0), dropout_rate=0.1)

graphdef, params, state = nnx.split(model, nnx.Param, ...)

def loss(params,state):
    model = nnx.merge(graphdef, params, state, copy=True)
    model.train()
    logits = model(jnp.ones((4,16,8), dtype=jnp.int32), decode=False)
    return logits.sum()

grads = jax.grad(loss)(params,state)

if __name__ == "__main__":
    assert jax.tree.structure(grads) == jax.tree.structure(params)
