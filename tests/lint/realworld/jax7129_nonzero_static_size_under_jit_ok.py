# source: https://github.com/jax-ml/jax/issues/7129 (the reporter's snippet)
# observed on jax 0.10.2 CPU: runs clean. `jnp.nonzero(x, size=1)` has a static size, so it
#   also traces under jit; for all-zero input the single slot is padded with index 0, the
#   same answer as for all-ones input, which is what the reporter found confusing (JAX's
#   documented padding, not a tracing bug). The __main__ block is added: it runs the same
#   calls under jax.jit and checks they match the eager results.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

x = jnp.zeros(5)
print(jnp.nonzero(x, size=1))   # Prints [ 0 ]

x = jnp.ones(5)
print(jnp.nonzero(x, size=1))   # Prints [ 0 ]


if __name__ == "__main__":
    nonzero_1 = jax.jit(lambda a: jnp.nonzero(a, size=1))
    for a in (jnp.zeros(5), jnp.ones(5)):
        (got,) = nonzero_1(a)
        (want,) = jnp.nonzero(a, size=1)
        assert got.tolist() == want.tolist() == [0], (got, want)
