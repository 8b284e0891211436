# source: https://github.com/jax-ml/jax/blob/main/docs/faq.rst ("How to use jit with methods?", Strategy 3: making CustomClass a PyTree; the fix recommended for the Stack Overflow question retold at https://openillumi.com/en/en-jax-jit-class-method-stale-cache-fix)
# observed on jax 0.10.2 CPU: runs clean; calc gives 6, then 3 after c.mul = False, then 6 with x = jnp.array(2)
# gap: stale-state-attributes
# (the __main__ block, which repeats the FAQ's calls and checks the results, is added)
import jax.numpy as jnp
from jax import jit
from jax import tree_util


class CustomClass:
    def __init__(self, x: jnp.ndarray, mul: bool):
        self.x = x
        self.mul = mul

    @jit
    def calc(self, y):
        if self.mul:
            return self.x * y
        return y

    def _tree_flatten(self):
        children = (self.x,)  # arrays / dynamic values
        aux_data = {'mul': self.mul}  # static values
        return (children, aux_data)

    @classmethod
    def _tree_unflatten(cls, aux_data, children):
        return cls(*children, **aux_data)


tree_util.register_pytree_node(CustomClass,
                               CustomClass._tree_flatten,
                               CustomClass._tree_unflatten)


if __name__ == "__main__":
    c = CustomClass(2, True)
    print(c.calc(3))
    assert int(c.calc(3)) == 6

    c.mul = False  # mutation is detected
    print(c.calc(3))
    assert int(c.calc(3)) == 3

    c = CustomClass(jnp.array(2), True)  # non-hashable x is supported
    print(c.calc(3))
    assert int(c.calc(3)) == 6
