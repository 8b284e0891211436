import jax
import jax.numpy as jnp


@jax.jit
def log2_with_print(x):
    print("printed x:", x)  # expect: JIT203
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


@jax.jit
def log2_debug(x):
    jax.debug.print("x = {x}", x=x)
    return jnp.log(x) / jnp.log(2.0)


def main():
    for i in range(3):
        y = log2_debug(jnp.float32(i + 1))
        print(f"step {i}: {y}")
