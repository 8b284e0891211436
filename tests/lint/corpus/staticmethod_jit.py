import jax
import jax.numpy as jnp


class Geometry:
    @staticmethod
    @jax.jit
    def normalize(v):
        n = jnp.linalg.norm(v)
        if n == 0:  # expect: JIT101
            return v
        return v / n

    @staticmethod
    @jax.jit
    def safe_normalize(v):
        n = jnp.linalg.norm(v)
        return v / jnp.where(n == 0, 1.0, n)

    def describe(self, v):
        if jnp.linalg.norm(v) == 0:
            return "zero"
        return "nonzero"
