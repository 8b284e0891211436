# source: https://github.com/patrick-kidger/equinox/issues/116 (both snippets of the
#   description)
# observed on jax 0.10.2 CPU (equinox 0.13.8): `jitfn(x,x,x)` raises TypeError
#   (unhashable type: 'jaxlib._jax.ArrayImpl'): jax.jit of the module itself hashes the
#   callable for its cache, and an equinox Module's hash hashes its leaves, the attention
#   weights included. The second snippet (jit of a vmap of a Linear) never runs.
# gap: static-hashability
import jax
from jax import jit
from equinox import nn

key=jax.random.PRNGKey(1)
x=jax.random.uniform(key,shape=(128,128))
fn = nn.MultiheadAttention(num_heads=4,query_size=128, key=key)  # tolerate: JIT502
print(fn(x,x,x))#no error

jitfn=jit(fn)
jitfn(x,x,x)#error  # expect: JIT302

key=jax.random.PRNGKey(1)
x=jax.random.uniform(key,shape=(512,512))
fn=nn.Linear(512,512,key=key)  # tolerate: JIT502
jf=jax.jit(jax.vmap(fn))
print(jf(x))#no error
