# source: https://github.com/google-deepmind/dm-haiku/blob/e28cc62cb3be3630ff5558ee2c0ea7f77172afda/docs/notebooks/transforms.ipynb
#   (Haiku's "Limitations of Nesting JAX Functions and Haiku Modules" document: the rewrite
#   that creates the parameter outside the `eval_shape` transformation)
# observed on jax 0.10.2 CPU with dm-haiku 0.0.17: `net` takes `w` as an argument and has no
#   side effect, so `jax.eval_shape(net, w, x)` inside `hk.transform` runs clean at init
#   and at apply. (The function returns the ShapeDtypeStruct it computes, so its apply is
#   not a function to `jax.jit`.) The `__main__` block wraps the document's cell.
# gap: stale-state-attributes
import haiku as hk
import jax
import jax.numpy as jnp

def net(w, x): # no side effects!
  return w @ x

def eval_shape_net(x):
  w = hk.get_parameter("w", (3, 2), init=jnp.ones)
  output_shape = jax.eval_shape(net, w, x) # net is now side-effect free
  return output_shape, net(w, x)


if __name__ == "__main__":
  key = jax.random.PRNGKey(777)
  x = jnp.ones((2, 3))
  init, apply = hk.transform(eval_shape_net)
  params = init(key, x)
  shape, out = apply(params, key, x)
  assert shape.shape == (3, 3) and out.shape == (3, 3)
