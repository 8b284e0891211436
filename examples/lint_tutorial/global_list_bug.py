"""Bug: a jitted function appends to a module-level list (jitlint: JIT202).

From the JAX tutorial's `log2`: the append runs once, while tracing, and stores a tracer;
later calls hit the compiled code and append nothing.
"""

import jax
import jax.numpy as jnp

global_list = []


def log2(x):
    global_list.append(x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


log2_jit = jax.jit(log2)


def main() -> None:
    for v in (3.0, 4.0, 5.0):
        log2_jit(v)
    print(f"3 calls, {len(global_list)} entry in global_list: {global_list[0]!r}")


if __name__ == "__main__":
    main()
