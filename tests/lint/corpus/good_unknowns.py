import jax
import jax.numpy as jnp
from somewhere import config, get_mode


@jax.jit
def forward(x):
    if config.use_bias:
        x = x + 1
    if get_mode() == "eval":
        x = x * 0.5
    n = config.num_layers
    for _ in range(n):
        x = jnp.tanh(x)
    return x
