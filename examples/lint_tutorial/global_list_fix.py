"""Fix: return what you want to keep and collect it outside the jitted function."""

import jax
import jax.numpy as jnp


@jax.jit
def log2(x):
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2, x


def main() -> None:
    collected = []
    for v in (3.0, 4.0, 5.0):
        _, seen = log2(v)
        collected.append(seen)
    print(f"3 calls, {len(collected)} entries: {[float(c) for c in collected]}")


if __name__ == "__main__":
    main()
