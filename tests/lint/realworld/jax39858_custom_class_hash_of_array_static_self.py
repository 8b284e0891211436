# source: https://github.com/jax-ml/jax/issues/39858
# observed on jax 0.10.2 CPU: with an array in `x`, as the `x: jnp.ndarray` annotation of
#   the class invites, calling c.calc(3.0) raises ValueError: Non-hashable static
#   arguments are not supported (the TypeError "unhashable type: 'jaxlib._jax.ArrayImpl'"
#   comes from hash((self.x, self.mul)) on the static `self`). The class is the report's
#   quote of the Common Gotchas example; `import jax.numpy as jnp`, `from jax import jit`
#   and the __main__ block (the array-valued instance and the call) are added.
# gap: static-hashability
import jax.numpy as jnp
from jax import jit


class CustomClass:
    def __init__(self, x: jnp.ndarray, mul: bool):
        self.x = x
        self.mul = mul

    @jit(static_argnums=0)
    def calc(self, y):
        if self.mul:
            return self.x * y
        return y

    def __hash__(self):
        return hash((self.x, self.mul))

    def __eq__(self, other):
        return (
            isinstance(other, CustomClass)
            and (self.x, self.mul) == (other.x, other.mul)
        )


if __name__ == "__main__":
    c = CustomClass(jnp.array([1.0, 2.0]), True)
    try:
        c.calc(3.0)  # expect: JIT302
    except ValueError as e:
        # observed: line 37 passes a static self whose hash hashes a JAX array and raises
        assert "Non-hashable static arguments" in str(e), e
    else:
        raise AssertionError("expected the static self to be unhashable")
