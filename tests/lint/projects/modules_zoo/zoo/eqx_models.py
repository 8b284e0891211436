import equinox as eqx
import jax
import jax.numpy as jnp


class Scaler(eqx.Module):
    weight: jax.Array
    threshold: float = eqx.field(static=True, default=0.5)

    def __init__(self, key, size):
        self.weight = jax.random.normal(key, (size,))

    def __call__(self, x):
        if self.threshold > 0.1:  # a static field: fine
            x = x * 2
        return self.rescale(x)

    def rescale(self, x):
        scale = jnp.max(self.weight * x)
        if scale > 1.0:  # expect: JIT101
            return x / scale
        return x


class Base(eqx.Module):
    bias: jax.Array

    def __call__(self, x):
        return x + self.bias

    def shift(self, x):
        return int(x.sum())  # expect: JIT401


class Child(Base):
    def __call__(self, x):
        return super().__call__(x) + super().shift(x)
