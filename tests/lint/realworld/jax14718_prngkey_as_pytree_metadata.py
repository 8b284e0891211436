# source: https://github.com/jax-ml/jax/issues/14718
# observed on jax 0.10.2 CPU: the first call `f(module)` traces and runs ("works"), as the
#   report says; after `b` is changed to another key, the next call raises ValueError:
#   "Exception raised while checking equality of metadata fields of pytree ... (Note: arrays
#   cannot be passed as metadata fields!)": `flattten` puts the PRNG key array `m.b` in the
#   pytree's aux_data, which jit uses as a static part of its cache key, and an array cannot
#   be compared there. Added: the two lines that do what the report describes ("You will get
#   an error if you modify `b` in this example and try to run `f` again"); the annotation
#   `jax.random.KeyArray`, which no longer exists, is spelled `jax.Array`.
# gap: static-hashability
import dataclasses
import jax
import jax.numpy as jnp
import numpy as np

@dataclasses.dataclass
class Foo:
    a: int
    b: jax.Array

def flattten(m: Foo):
    return (m.a,), m.b

def unflatten(aux_data, children):
    return Foo(a=children[0], b=aux_data)

jax.tree_util.register_pytree_node(Foo, flattten, unflatten)

module = Foo(a=1, b=jax.random.PRNGKey(0))

@jax.jit
def f(m: Foo):
    print("Jitting")  # tolerate: JIT203
    return m.a + m.b

f(module) # works 🤔

module.b = jax.random.PRNGKey(1)
f(module)  # expect: JIT302
