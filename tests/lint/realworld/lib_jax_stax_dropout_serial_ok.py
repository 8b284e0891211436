# source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/jax/example_libraries/stax.py
#   (Dense, elementwise/Relu, Dropout and the serial combinator)
# observed on jax 0.10.2 CPU: runs clean under jit: `if rng is None` and `if mode == 'train'`
#   test Python values while tracing, serial splits the one rng into a key per layer, and a
#   fresh key per step gives a fresh dropout mask; mode='test' returns its inputs. Added:
#   the imports and the __main__ block.
# gap: exemption-vs-JAX
import jax
from jax import random
import jax.numpy as jnp
from jax.nn import relu
from jax.nn.initializers import glorot_normal, normal


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
  """Layer constructor function for a dense (fully-connected) layer."""
  def init_fun(rng, input_shape):
    output_shape = input_shape[:-1] + (out_dim,)
    k1, k2 = random.split(rng)
    W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
    return output_shape, (W, b)
  def apply_fun(params, inputs, **kwargs):
    W, b = params
    return jnp.dot(inputs, W) + b
  return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
  """Layer that applies a scalar function elementwise on its inputs."""
  init_fun = lambda rng, input_shape: (input_shape, ())
  apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)
  return init_fun, apply_fun
Relu = elementwise(relu)


def Dropout(rate, mode='train'):
  """Layer construction function for a dropout layer with given rate."""
  def init_fun(rng, input_shape):
    return input_shape, ()
  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.get('rng', None)
    if rng is None:
      msg = ("Dropout layer requires apply_fun to be called with a PRNG key "
             "argument. That is, instead of `apply_fun(params, inputs)`, call "
             "it like `apply_fun(params, inputs, rng)` where `rng` is a "
             "PRNG key (e.g. from `jax.random.key`).")
      raise ValueError(msg)
    if mode == 'train':
      keep = random.bernoulli(rng, rate, inputs.shape)
      return jnp.where(keep, inputs / rate, 0)
    else:
      return inputs
  return init_fun, apply_fun


def serial(*layers):
  """Combinator for composing layers in serial.

  Args:
    *layers: a sequence of layers, each an (init_fun, apply_fun) pair.

  Returns:
    A new layer, meaning an (init_fun, apply_fun) pair, representing the serial
    composition of the given sequence of layers.
  """
  nlayers = len(layers)
  init_funs, apply_funs = zip(*layers)
  def init_fun(rng, input_shape):
    params = []
    for init_fun in init_funs:
      rng, layer_rng = random.split(rng)
      input_shape, param = init_fun(layer_rng, input_shape)
      params.append(param)
    return input_shape, params
  def apply_fun(params, inputs, **kwargs):
    rng = kwargs.pop('rng', None)
    rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
    for fun, param, rng in zip(apply_funs, params, rngs):
      inputs = fun(param, inputs, rng=rng, **kwargs)
    return inputs
  return init_fun, apply_fun


if __name__ == "__main__":
  init_fun, apply_fun = serial(Dense(16), Relu, Dropout(0.5), Dense(4))
  _, test_apply = serial(Dense(16), Relu, Dropout(0.5, mode='test'), Dense(4))
  key, init_key = random.split(random.PRNGKey(0))
  _, params = init_fun(init_key, (-1, 8))
  x = jnp.ones((32, 8))
  apply_jit = jax.jit(apply_fun)
  k1, k2, k3 = random.split(key, 3)
  y1 = apply_jit(params, x, rng=k1)
  y2 = apply_jit(params, x, rng=k2)
  assert y1.shape == (32, 4) and not jnp.allclose(y1, y2)
  eval_out = jax.jit(test_apply)(params, x, rng=k3)
  W1, b1 = params[0]
  W2, b2 = params[3]
  assert jnp.allclose(eval_out, jnp.dot(relu(jnp.dot(x, W1) + b1), W2) + b2, atol=1e-5)
