# source: https://github.com/jax-ml/jax/pull/5905 (the log2 example of the second JAX-101
#   notebook, 02-jitting.ipynb, added by that pull request)
# observed on jax 0.10.2 CPU: the jaxpr has no trace of the append, and what global_list
#   holds afterwards is a leaked tracer, not 3.0. Added: the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

global_list = []

def log2(x):
  global_list.append(x)  # expect: JIT202
  ln_x = jnp.log(x)
  ln_2 = jnp.log(2.0)
  return ln_x / ln_2

print(jax.make_jaxpr(log2)(3.0))

if __name__ == "__main__":
    # observed: line 12 stores the tracer of make_jaxpr's trace in the global list
    assert isinstance(global_list[0], jax.core.Tracer)
