# source: https://github.com/google/flax/issues/4539 (the reporter's working version)
# observed on jax 0.10.2 CPU with flax 0.12.8: runs clean, and two calls of the jitted
#   forward give different dropout masks: the module, with its Rngs, goes through nnx.jit
#   as an argument, so its RNG state advances on every call.
# gap: stale-state-attributes
from flax import nnx
from jax import numpy as jnp

@nnx.jit
def forward(model, x):
    return model(x)

module = nnx.Dropout(0.5, rngs=nnx.Rngs(0))
forward(module, jnp.ones((3, 5)))


if __name__ == "__main__":
    a = forward(module, jnp.ones((3, 5)))
    b = forward(module, jnp.ones((3, 5)))
    assert not bool((a == b).all())
