# source: https://github.com/jax-ml/jax/issues/15509
# observed on jax 0.10.2 CPU: lax.fori_loop traces f with a traced idx, so shape_list[idx]
#   (a row of a jnp array picked by the traced loop index) is a tracer, and
#   vec.reshape(shape) raises TypeError (shapes must be 1D sequences of concrete values of
#   integer type) on that line; the user's commented-out Python loop works.
# gap: omnistaging
# added: imports; call_back_f, which the report passes to fori_loop without defining it,
#   bound to the reporter's f.
import jax
import jax.numpy as jnp

vector = jnp.zeros(2 ** 5)

def f(idx, vec):
    shape = shape_list[idx]
    return vec.reshape(shape)  # expect: JIT404


shape_list = jnp.array([[2, 2, 1, 2, 4, ],
                        [1, 2, 2, 2, 4, ],
                        [4, 2, 1, 2, 2, ]])
call_back_f = f
jax.lax.fori_loop(0, len(shape_list), call_back_f, vector)
# for i in range(len(shape_list)):
#    vector = f(i, vector)
