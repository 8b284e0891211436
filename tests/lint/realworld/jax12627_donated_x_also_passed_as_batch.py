# source: https://github.com/jax-ml/jax/issues/12627
# observed on jax 0.10.2 CPU: the first `x = update(x, batch)` raises JaxRuntimeError
#   "INVALID_ARGUMENT: Attempt to use a buffer that was previously donated in the same call
#   to Execute() ... `f(donate(a), a)`": `batch = x` is the same buffer as the donated x
#   (the report, on GPU with jax 0.3.17, saw the program hang instead). The 1 GB array is
#   shrunk to 1024 floats; the rest is as reported.
# gap: other
from functools import partial
import jax
import jax.numpy as jnp


def main():
    @partial(jax.jit, donate_argnums=(0,))
    def update(x, batch):
        return x + batch

    # x takes 1GB memory
    x = jnp.zeros((1024,), dtype=jnp.float32)

    # A training loop
    for _ in range(10):
        batch = x

        x = update(x, batch)  # expect: JIT504


if __name__ == "__main__":
    main()
