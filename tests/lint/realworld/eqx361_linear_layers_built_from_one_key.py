# source: https://github.com/patrick-kidger/equinox/issues/361 (the reporter's snippet; the
#   thread is about the MLP line, which the reporter comments out)
# observed on jax 0.10.2 CPU (equinox 0.13.8): the jitted gradients of model_lin and
#   model_seq run, but every layer is initialised from the same `key`: eqx.nn.Linear and
#   eqx.nn.MLP each split the key they are given, so the three Sequential layers and the MLP
#   re-consume the key that model_lin already used (the same constructors on a typed key
#   raise KeyReuseError under jax.debug_key_reuse), and the layers' draws repeat: the bias of
#   the Linear(1, 3) layer is model_lin's bias scaled by sqrt(2) (same uniform draws, bound
#   1 instead of 1/sqrt(2)). Added: the __main__ block.
# gap: other
import jax
import jax.nn as jnn
import jax.numpy as jnp
import jax.random as jrandom
from jaxtyping import Array, Float, Int, PyTree  # https://github.com/google/jaxtyping

import equinox as eqx

@jax.jit
@jax.grad
def loss_fn(model, x, y):
    pred_y = jax.vmap(model)(x)
    return jax.numpy.mean((y - pred_y) ** 2)

batch_size, in_size, out_size = 32, 2, 3
key=jax.random.PRNGKey(0)
model_lin = eqx.nn.Linear(in_size, out_size, key=key)
model_seq = eqx.nn.Sequential(
        [
            eqx.nn.Linear(in_size, 4, key=key),  # expect: JIT502
            eqx.nn.Linear(4, 1, key=key),  # expect: JIT502
            eqx.nn.Linear(1, out_size, key=key),  # expect: JIT502
        ]
    )
model_MLP = eqx.nn.MLP(in_size, out_size, 8, 2, key=key)  # expect: JIT502

# Try these three models:
x = jax.numpy.zeros((batch_size, in_size), dtype=jnp.float32)
y = jax.numpy.zeros((batch_size, out_size), dtype=jnp.float32)
grads_lin = loss_fn(model_lin, x, y)
grads_seq = loss_fn(model_seq, x, y)
# grads_MLP = loss_fn(model_MLP, x, y)


if __name__ == "__main__":
    # the same draws: Linear(1, 3)'s bias is uniform(-1, 1) from the key's bias subkey,
    # model_lin's is uniform(-1/sqrt(2), 1/sqrt(2)) from the same subkey
    assert jnp.allclose(model_seq.layers[2].bias, model_lin.bias * jnp.sqrt(2.0), atol=1e-6)
    reused = []
    with jax.debug_key_reuse(True):
        k = jax.random.key(0)
        eqx.nn.Linear(in_size, out_size, key=k)
        for build in (
            lambda: eqx.nn.Linear(in_size, 4, key=k),  # tolerate: JIT502
            lambda: eqx.nn.Linear(4, 1, key=k),  # tolerate: JIT502
            lambda: eqx.nn.Linear(1, out_size, key=k),  # tolerate: JIT502
            lambda: eqx.nn.MLP(in_size, out_size, 8, 2, key=k),  # tolerate: JIT502
        ):
            try:
                build()
            except jax.errors.KeyReuseError:
                reused.append(True)
    # observed: line 30, line 31, line 32 and line 35 each split the key that model_lin's
    #   Linear already consumed (KeyReuseError under jax.debug_key_reuse with a typed key;
    #   line 32's bias repeats model_lin's draws)
    assert reused == [True, True, True, True], reused
