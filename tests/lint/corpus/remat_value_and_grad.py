import jax
import jax.numpy as jnp


def transformer_block(x, w1, w2):
    h = jax.nn.gelu(x @ w1)
    if jnp.max(jnp.abs(h)) > 100.0:  # expect: JIT101
        h = h / 100.0
    return x + h @ w2


block = jax.remat(transformer_block)


@jax.jit
def loss_and_grad(params, x):
    def loss(p):
        h = x
        for w1, w2 in p:
            h = block(h, w1, w2)
        return jnp.mean(h**2)

    return jax.value_and_grad(loss)(params)
