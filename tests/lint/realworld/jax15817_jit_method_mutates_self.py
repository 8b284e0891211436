# source: https://github.com/jax-ml/jax/issues/15817
# observed on jax 0.10.2 CPU: a.x is unchanged after a.set_subsystem(...): the jitted
#   method assigns to an attribute of the traced copy of self, never of `a`.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
import numpy as np


class A:
    def __init__(self, x: jnp.ndarray):
        self.x = x

    def _tree_flatten(self):
        dynamic = (self.x, )
        static = {}
        return dynamic, static

    @classmethod
    def _tree_unflatten(cls, static, dynamic):
        return cls(*dynamic)

    @jax.jit   # if there is not jit here then everything is good
    def set_subsystem(self, index, sub: "A"):
        self.x = self.x.at[index].set(sub.x)  # expect: JIT202


jax.tree_util.register_pytree_node(A,
                                   A._tree_flatten,
                                   A._tree_unflatten)


nall = 3
nsub = 2
x = jnp.array(np.random.random((nall, )))
x2 = jnp.array(np.random.random((nsub, )))

a = A(x)
a2 = A(x2)

print(a2.x)
print(a.x)
a.set_subsystem(jnp.arange(nsub), a2)
print(a.x)

if __name__ == "__main__":
    # observed: line 25 writes to the traced copy: the caller's object is unchanged
    assert (a.x == x).all()
