# source: https://taourl.com/read-3763631.html
#   (a Q&A answer, "Jax- generating random numbers under JIT": its two examples, up to
#   where the page's excerpt of the code ends)
# observed on jax 0.10.2 CPU: jit_rand(key, (1000,)) raises TypeError ("Shapes must be 1D
#   sequences of concrete values of integer type, got (JitTracer(~int32[]),)"): jax.jit of
#   jax.random.normal traces every argument, the shape tuple's 1000 included, although
#   the answer says the call works. The second example never runs; it would split the
#   key the first one drew from, a second bug left behind the first (tolerated). Added:
#   nothing.
# gap: omnistaging
import jax

import jax.numpy as jnp

key = jax.random.PRNGKey(42)

jit_rand = jax.jit(jax.random.normal)

random_values = jit_rand(key, (1000,))  # expect: JIT404

key, subkey = jax.random.split(key)  # tolerate: JIT502

jit_rand = jax.jit(lambda k: jax.random.normal(k, (1000,)))

random_values = jit_rand(subkey)
