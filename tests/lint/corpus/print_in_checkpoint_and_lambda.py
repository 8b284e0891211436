import logging

import jax
import jax.numpy as jnp

log = logging.getLogger(__name__)


@jax.checkpoint
def block(x):
    print("block input", x)  # expect: JIT203
    return jnp.sin(x)


@jax.jit
def run(x):
    log.warning("running with %s", x)  # expect: JIT203
    return block(x)


if __name__ == "__main__":
    print(run(jnp.ones(3)))
