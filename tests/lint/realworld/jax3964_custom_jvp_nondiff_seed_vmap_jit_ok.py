# source: https://github.com/jax-ml/jax/issues/3964 (the repro cases of the report: vmap,
#   and jit from the reporter's comment)
# observed on jax 0.10.2 CPU: both calls run: the custom_jvp function with the shape and
#   the seed as nondiff_argnums is vmapped over 10 keys and jitted (the
#   UnexpectedTracerError of the report is gone). Added: the prints of the shapes; the
#   `!pip install` line is left out.
# gap: other
import jax, jax.numpy as jnp, functools

@functools.partial(jax.custom_jvp, nondiff_argnums=(0, 2))
def sample(shape, param, seed):
  return jax.random.gamma(key=seed, shape=shape, a=param)

@sample.defjvp
def sample_jvp(shape, seed, primals, tangents):
  param, = primals
  dparam, = tangents
  dparam = jnp.broadcast_to(dparam, shape)
  samples = sample(shape, param, seed)
  return samples, samples * dparam  # dummy jvp for proof of concept

print(jax.vmap(lambda seed: sample((2,3), 1., seed))(
    jax.random.split(jax.random.PRNGKey(1), 10)).shape)
print(jax.jit(lambda seed: sample((2,3), 1., seed))(jax.random.PRNGKey(1)).shape)
