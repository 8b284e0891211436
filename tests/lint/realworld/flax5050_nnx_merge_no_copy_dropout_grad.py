# source: https://github.com/google/flax/issues/5050
# observed on jax 0.10.2 CPU: with flax 0.12.8, `jax.grad(loss)(params, state)` raises
#   TraceContextError (Cannot mutate RngCount from a different trace level) at the model call
#   in `loss`: `nnx.merge(..., copy=False)` rebuilds the module around the Variables of the
#   state it is given, which live outside the trace of jax.grad, and the attention layer's
#   dropout advances their RNG count from inside it. Kept as the reporter wrote it.
# gap: stale-state-attributes
import flax.nnx as nnx
import jax
import jax.numpy as jnp

model = nnx.MultiHeadAttention(8,8,8,8, rngs = nnx.Rngs(0), dropout_rate=0.1)

graphdef, params, state = nnx.split(model, nnx.Param, ...)

def loss(params,state):
    model = nnx.merge(graphdef, params, state, copy=False) # Works for copy=True
    model.train()
    logits = model(jnp.ones((4,16,8), dtype=jnp.int32), decode=False)  # expect: JIT202
    return logits.sum()

jax.grad(loss)(params,state)
#Error  
#TraceContextError: Cannot mutate RngStream from a different trace level (https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#flax.errors.TraceContextError)
