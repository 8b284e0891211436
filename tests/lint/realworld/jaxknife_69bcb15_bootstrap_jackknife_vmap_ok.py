# source: https://github.com/ell-bogat/jaxknife/blob/69bcb15e040bc2dc259b7986aaeeec4bdb2406dd/jaxknife/bootstrap.py
#   (a small bootstrap/jackknife package: resamples drawn in one jax.random.choice call,
#   the statistic applied to every resample with jax.vmap)
# observed on jax 0.10.2 CPU: runs clean; bootstrap (on a 1-D sample, as its choice shape
#   expects) draws all resamples from one key in a single call (no key is drawn from twice),
#   vmap applies the statistic across them, and the jackknife's boolean mask (on a 2-D
#   sample, as its reshape expects) is built from concrete arrays outside any jit, so
#   redata[mask] has a known size: each leave-one-out mean matches the NumPy one. Left out:
#   the commented-out jaxstrapknife. Added: the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import numpy as np

def bootstrap(data, statistic_func, n_resamples, seed):
    resamples = bootstrap_resamples(data, n_resamples, seed)
    est_arr = _apply_vect_statistic(statistic_func, resamples)
    return est_arr

def jackknife(data, statistic_func):
    resamples = jackknife_resamples(data)
    est_arr = _apply_vect_statistic(statistic_func, resamples)
    return est_arr

def _apply_vect_statistic(statistic_func, resamples):
    statistic_vectorized = jax.vmap(statistic_func)
    return statistic_vectorized(resamples)


def bootstrap_resamples(data, n_resamples, seed):
    key = jax.random.PRNGKey(seed)
    resamples = jax.random.choice(key,data,(n_resamples,*data.shape),replace=True)
    return resamples


def jackknife_resamples(data):
    redata = jnp.repeat(jnp.array([data]), data.shape[0], axis=0)
    mask = jnp.repeat(~jnp.eye(data.shape[0], dtype=bool).reshape(data.shape[0], data.shape[0], -1), data.shape[-1], axis=2)
    return redata[mask].reshape(data.shape[0], data.shape[0]-1, -1)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    data = jnp.asarray(rng.normal(size=(20, 2)), dtype=jnp.float32)
    mean = lambda x: jnp.mean(x, axis=0)

    # bootstrap takes a 1-D sample (choice's shape argument is (n_resamples, *data.shape))
    x = data[:, 0]
    boots = bootstrap(x, jnp.mean, 500, 0)
    assert boots.shape == (500,)
    # resamples differ from one another: one key, one call, independent draws
    assert len(np.unique(np.asarray(boots))) > 450
    # the bootstrap standard error is near the analytic one
    se = np.asarray(x).std(ddof=1) / np.sqrt(20)
    assert np.isclose(float(np.asarray(boots).std()), se, rtol=0.25), (boots.std(), se)

    jack = jackknife(data, mean)
    d = np.asarray(data)
    expected = np.stack([np.delete(d, i, axis=0).mean(0) for i in range(20)])
    assert np.allclose(np.asarray(jack), expected, atol=1e-6)
    print("bootstrap se:", boots.std(), "jackknife ok")
