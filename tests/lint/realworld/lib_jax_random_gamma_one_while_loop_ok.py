# source: https://github.com/jax-ml/jax/blob/jax-v0.2.10/jax/_src/random.py (_gamma_one and
#   _gamma_impl, the Marsaglia-Tsang gamma sampler behind jax.random.gamma)
# observed on jax 0.10.2 CPU: runs clean under jit, through vmap and through lax.map: the
#   nested lax.while_loops carry and split their keys, every draw uses a fresh subkey, and
#   the sample means match alpha. Added: `prod` is math.prod, `_constant_like` is jax's own
#   one-line helper of that version, the public jax.random functions are imported, and the
#   __main__ block.
# gap: exemption-vs-JAX
from functools import partial
from math import prod

import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, lax, vmap
from jax.random import split, uniform, normal


def _constant_like(x, const):
  return np.array(const, dtype=lax.dtype(x))


def _gamma_one(key, alpha):
  # Ref: A simple method for generating gamma variables, George Marsaglia and Wai Wan Tsang
  # The algorithm can also be founded in:
  # https://en.wikipedia.org/wiki/Gamma_distribution#Generating_gamma-distributed_random_variables
  zero = _constant_like(alpha, 0)
  one = _constant_like(alpha, 1)
  minus_one = _constant_like(alpha, -1)
  one_over_two = _constant_like(alpha, 0.5)
  one_over_three = _constant_like(alpha, 1. / 3.)
  squeeze_const = _constant_like(alpha, 0.0331)
  dtype = lax.dtype(alpha)

  key, subkey = split(key)
  # for alpha < 1, we boost alpha to alpha + 1 and get a sample according to
  # Gamma(alpha) ~ Gamma(alpha+1) * Uniform()^(1 / alpha)
  boost = lax.select(lax.ge(alpha, one),
                     one,
                     lax.pow(uniform(subkey, (), dtype=dtype), lax.div(one, alpha)))
  alpha = lax.select(lax.ge(alpha, one), alpha, lax.add(alpha, one))

  d = lax.sub(alpha, one_over_three)
  c = lax.div(one_over_three, lax.pow(d, one_over_two))

  def _cond_fn(kXVU):
    _, X, V, U = kXVU
    # TODO: use lax.cond when its batching rule is supported
    # The reason is to avoid evaluating second condition which involves log+log
    # if the first condition is satisfied
    cond = lax.bitwise_and(lax.ge(U, lax.sub(one, lax.mul(squeeze_const, lax.mul(X, X)))),
                           lax.ge(lax.log(U), lax.add(lax.mul(X, one_over_two),
                                                      lax.mul(d, lax.add(lax.sub(one, V),
                                                                         lax.log(V))))))
    return cond

  def _body_fn(kXVU):
    def _next_kxv(kxv):
      key = kxv[0]
      key, subkey = split(key)
      x = normal(subkey, (), dtype=dtype)
      v = lax.add(one, lax.mul(x, c))
      return key, x, v

    key = kXVU[0]
    key, x_key, U_key = split(key, 3)
    _, x, v = lax.while_loop(lambda kxv: lax.le(kxv[2], zero), _next_kxv, (x_key, zero, minus_one))
    X = lax.mul(x, x)
    V = lax.mul(lax.mul(v, v), v)
    U = uniform(U_key, (), dtype=dtype)
    return key, X, V, U

  # initial state is chosen such that _cond_fn will return True
  _, _, V, _ = lax.while_loop(_cond_fn, _body_fn, (key, zero, one, _constant_like(alpha, 2)))
  z = lax.mul(lax.mul(d, V), boost)
  return lax.select(lax.eq(z, zero), jnp.finfo(z.dtype).tiny, z)


def _gamma_impl(key, a, use_vmap=False):
  a_shape = jnp.shape(a)
  # split key to match the shape of a
  key_ndim = jnp.ndim(key) - 1
  key = jnp.reshape(key, (-1, 2))
  key = vmap(split, in_axes=(0, None))(key, prod(a_shape[key_ndim:]))
  keys = jnp.reshape(key, (-1, 2))
  alphas = jnp.reshape(a, -1)
  if use_vmap:
    samples = vmap(_gamma_one)(keys, alphas)
  else:
    samples = lax.map(lambda args: _gamma_one(*args), (keys, alphas))

  return jnp.reshape(samples, a_shape)


if __name__ == "__main__":
  jax.config.update("jax_debug_key_reuse", True)
  key = jax.random.PRNGKey(0)
  alphas = jnp.array([0.5, 1.0, 3.0, 10.0] * 500)
  key_vmap, key_map = split(key)
  by_vmap = jit(partial(_gamma_impl, use_vmap=True))(key_vmap, alphas)
  by_map = jit(_gamma_impl)(key_map, alphas)
  for samples in (by_vmap, by_map):
    means = samples.reshape(500, 4).mean(0)
    assert jnp.allclose(means, jnp.array([0.5, 1.0, 3.0, 10.0]), rtol=0.15), means
    assert bool((samples > 0).all())
