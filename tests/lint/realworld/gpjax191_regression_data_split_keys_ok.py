# source: https://github.com/JaxGaussianProcesses/GPJax/blob/6ebdeedff5fcbcbdecf0921502faeb71b1bf326a/examples/regression.pct.py
#   (the dataset cell of the regression example after "remove sorting and split keys
#   instead", https://github.com/thomaspinder/GPJax/pull/191)
# observed on jax 0.10.2 CPU: x and the noise come from two keys of one split; the ranks
#   of the noise no longer follow those of x. Added: `import jax` and the __main__ block;
#   `from jax.config import config` is spelled `jax.config`. Left out: the notebook's
#   other imports (gpjax, jaxkern, jaxutils, optax, matplotlib, pprint, jit; not installed
#   or unused here), the `D = Dataset(X=x, y=y)` line and the cells after the dataset.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jr

# Enable Float64 for more stable matrix inversions.
jax.config.update("jax_enable_x64", True)
key = jr.PRNGKey(123)

n = 100
noise = 0.3

key, subkey = jr.split(key)
x = jr.uniform(key=key, minval=-3.0, maxval=3.0, shape=(n,)).reshape(-1, 1)
f = lambda x: jnp.sin(4 * x) + jnp.cos(2 * x)
signal = f(x)
y = signal + jr.normal(subkey, shape=signal.shape) * noise

xtest = jnp.linspace(-3.5, 3.5, 500).reshape(-1, 1)
ytest = f(xtest)


if __name__ == "__main__":
    eps = ((y - signal) / noise).ravel()
    assert not bool(jnp.all(jnp.argsort(eps) == jnp.argsort(x.ravel())))
