# source: https://github.com/pyro-ppl/numpyro/pull/376 ("improve binom/multinomial sampling",
#   the accepted fix of the traced-n_max binomial of https://github.com/jax-ml/jax/issues/480;
#   the samplers as merged, numpyro/distributions/util.py at commit
#   46107b57553b95c0eefc3c7007354597f8524cbb)
# observed on jax 0.10.2 CPU: runs clean: binomial and multinomial compute
#   n_max = int(np.max(n)) outside jit and pass it, with the output shape, as static
#   arguments, so random.uniform, np.arange(n_max) and categorical's (n_max,) + shape get
#   concrete sizes; _poisson splits its key inside the while_loop body and carries the new
#   one; `if np.ndim(n) > 0` in _multinomial is on a static rank. Changed: `from jax.util
#   import partial` is functools.partial, `canonicalize_dtype` comes from jax.dtypes, and the
#   custom_transforms/defjvp wrapper of cumsum (removed from JAX) is left off, keeping its
#   body; added: the __main__ block.
# gap: exemption-vs-JAX
from functools import partial

import jax
from jax import jit, lax, random, vmap
from jax.dtypes import canonicalize_dtype
import jax.numpy as np


@partial(jit, static_argnums=(3, 4))
def _binomial(key, p, n, n_max, shape):
    p, n = promote_shapes(p, n)
    shape = shape or lax.broadcast_shapes(np.shape(p), np.shape(n))
    uniforms = random.uniform(key, shape + (n_max,))
    n = np.expand_dims(n, axis=-1)
    p = np.expand_dims(p, axis=-1)
    mask = (np.arange(n_max) < n).astype(uniforms.dtype)
    p, uniforms = promote_shapes(p, uniforms)
    return np.sum(mask * lax.lt(uniforms, p), axis=-1, keepdims=False)


def binomial(key, p, n=1, shape=()):
    n_max = int(np.max(n))
    return _binomial(key, p, n, n_max, shape)


@partial(jit, static_argnums=(2,))
def _categorical(key, p, shape):
    # this implementation is fast when event shape is small, and slow otherwise
    # Ref: https://stackoverflow.com/a/34190035
    shape = shape or p.shape[:-1]
    s = cumsum(p)
    r = random.uniform(key, shape=shape + (1,))
    # FIXME: replace this computation by using binary search as suggested in the above
    # reference. A while_loop + vmap for a reshaped 2D array would be enough.
    return np.sum(s < r, axis=-1)


def categorical(key, p, shape=()):
    return _categorical(key, p, shape)


@partial(jit, static_argnums=(2, 3))
def _poisson(key, rate, shape, dtype):
    # Ref: https://en.wikipedia.org/wiki/Poisson_distribution#Generating_Poisson-distributed_random_variables
    shape = shape or np.shape(rate)
    L = np.exp(-rate)
    k = np.zeros(shape, dtype=dtype)
    p = np.ones(shape)

    def body_fn(val):
        k, p, rng = val
        k = np.where(p > L, k + 1, k)
        rng, rng_u = random.split(rng)
        u = random.uniform(rng_u, shape)
        p = p * u
        return k, p, rng

    k, _, _ = lax.while_loop(lambda val: np.any(val[1] > L), body_fn, (k, p, key))
    return k - 1


def poisson(key, rate, shape, dtype=np.int64):
    dtype = canonicalize_dtype(dtype)
    return _poisson(key, rate, shape, dtype)


def _scatter_add_one(operand, indices, updates):
    return lax.scatter_add(operand, indices, updates,
                           lax.ScatterDimensionNumbers(update_window_dims=(),
                                                       inserted_window_dims=(0,),
                                                       scatter_dims_to_operand_dims=(0,)))


@partial(jit, static_argnums=(3, 4))
def _multinomial(key, p, n, n_max, shape=()):
    if np.shape(n) != np.shape(p)[:-1]:
        broadcast_shape = lax.broadcast_shapes(np.shape(n), np.shape(p)[:-1])
        n = np.broadcast_to(n, broadcast_shape)
        p = np.broadcast_to(p, broadcast_shape + np.shape(p)[-1:])
    shape = shape or p.shape[:-1]
    # get indices from categorical distribution then gather the result
    indices = categorical(key, p, (n_max,) + shape)
    # mask out values when counts is heterogeneous
    if np.ndim(n) > 0:
        mask = promote_shapes(np.arange(n_max) < np.expand_dims(n, -1), shape=shape + (n_max,))[0]
        mask = np.moveaxis(mask, -1, 0).astype(indices.dtype)
        excess = np.concatenate([np.expand_dims(n_max - n, -1), np.zeros(np.shape(n) + (p.shape[-1] - 1,))], -1)
    else:
        mask = 1
        excess = 0
    # NB: we transpose to move batch shape to the front
    indices_2D = (np.reshape(indices * mask, (n_max, -1,))).T
    samples_2D = vmap(_scatter_add_one, (0, 0, 0))(np.zeros((indices_2D.shape[0], p.shape[-1]),
                                                            dtype=indices.dtype),
                                                   np.expand_dims(indices_2D, axis=-1),
                                                   np.ones(indices_2D.shape, dtype=indices.dtype))
    return np.reshape(samples_2D, shape + p.shape[-1:]) - excess


def multinomial(key, p, n, shape=()):
    n_max = int(np.max(n))
    return _multinomial(key, p, n, n_max, shape)


def cumsum(x):
    return np.cumsum(x, axis=-1)


def promote_shapes(*args, shape=()):
    # adapted from lax.lax_numpy
    if len(args) < 2 and not shape:
        return args
    else:
        shapes = [np.shape(arg) for arg in args]
        num_dims = len(lax.broadcast_shapes(shape, *shapes))
        return [lax.reshape(arg, (1,) * (num_dims - len(s)) + s)
                if len(s) < num_dims else arg for arg, s in zip(args, shapes)]


if __name__ == "__main__":
    key = random.PRNGKey(0)
    k1, k2, k3, k4, k5 = random.split(key, 5)

    draws = binomial(k1, 0.5, np.array(10), shape=(1000,))
    assert draws.shape == (1000,) and 4.5 < float(draws.mean()) < 5.5, draws.mean()
    mixed = binomial(k2, np.array([0.2, 0.9]), np.array([10, 30]))
    assert mixed.shape == (2,) and bool(np.all(mixed <= np.array([10, 30])))

    cats = categorical(k3, np.array([0.1, 0.2, 0.7]), shape=(500,))
    assert cats.shape == (500,) and int(cats.max()) <= 2

    counts = poisson(k4, 3.0, (2000,))
    assert 2.7 < float(counts.mean()) < 3.3, counts.mean()

    p = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    n = np.array([5, 12])
    m = multinomial(k5, p, n)
    assert m.shape == (2, 3) and bool(np.all(m.sum(-1) == n)), m
    m1 = multinomial(k5, np.array([0.5, 0.5]), 7)
    assert int(m1.sum()) == 7, m1
