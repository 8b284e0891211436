import jax
import jax.numpy as jnp

temperature = 1.0
VOCAB = 32000


@jax.jit
def sample_logits(logits):
    return logits / temperature  # expect: JIT201


@jax.jit
def one_hot(ids):
    return jax.nn.one_hot(ids, VOCAB)


for epoch in range(3):
    temperature *= 0.5
