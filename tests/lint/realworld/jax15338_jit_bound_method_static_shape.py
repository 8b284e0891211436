# source: https://github.com/jax-ml/jax/issues/15338
# observed on jax 0.10.2 CPU: jax.jit of the free function `do` in the loop is traced once;
#   jax.jit of the bound method `a.do` is traced on every iteration. The prints are the
#   reporter's trace-time markers (tolerated).
# gap: per-call-recompile
import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node_class

@register_pytree_node_class
class A:
    def do(self, key, shape):
        print('A.do()')  # tolerate: JIT203
        return jax.random.uniform(key, shape)

    def tree_flatten(self):
        return (), {}

    @classmethod
    def tree_unflatten(cls, treedef, leaves):
        return cls(*leaves, **treedef)

def do(obj, key, shape):
    print('do()')  # tolerate: JIT203
    return obj.do(key, shape)

a = A()  # ([], PyTreeDef(CustomNode(A[{}], [])))
key = jax.random.PRNGKey(42)

print('function')
for _ in range(3):
    key, subkey = jax.random.split(key)
    jax.jit(do, static_argnums=2)(a, subkey, (2, 3, 4))

print('bounded method')
for _ in range(3):
    key, subkey = jax.random.split(key)
    jax.jit(a.do, static_argnums=1)(subkey, (2, 3, 4))  # expect: JIT301


if __name__ == "__main__":
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for _ in range(3):
            key, subkey = jax.random.split(key)
            jax.jit(a.do, static_argnums=1)(subkey, (2, 3, 4))  # tolerate: JIT301
    # observed: line 38 traces a.do again on every iteration
    assert out.getvalue().count("A.do()") == 3, out.getvalue()
