# source: https://github.com/JaxGaussianProcesses/GPJax/blob/f8e5410865354074ed7d0e939a7dab21cd5b05a4/examples/regression.pct.py
#   (the dataset cell of the regression example before "remove sorting and split keys
#   instead", https://github.com/thomaspinder/GPJax/pull/191)
# observed on jax 0.10.2 CPU: the noise of y is drawn from the key the inputs x were drawn
#   from, so it is a monotone function of the (unsorted) uniform draw: their ranks agree
#   exactly (the example sorted x to hide the correlation). Added: `import jax` and the
#   __main__ block; `from jax.config import config` is spelled `jax.config`. Left out:
#   the notebook's other imports (gpjax, jaxkern, jaxutils, optax, matplotlib, pprint,
#   jit; not installed or unused here), the `D = Dataset(X=x, y=y)` line and the cells
#   after the dataset.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jr

# Enable Float64 for more stable matrix inversions.
jax.config.update("jax_enable_x64", True)
key = jr.PRNGKey(123)

n = 100
noise = 0.3

x = jr.uniform(key=key, minval=-3.0, maxval=3.0, shape=(n,)).sort().reshape(-1, 1)
f = lambda x: jnp.sin(4 * x) + jnp.cos(2 * x)
signal = f(x)
y = signal + jr.normal(key, shape=signal.shape) * noise  # expect: JIT502

xtest = jnp.linspace(-3.5, 3.5, 500).reshape(-1, 1)
ytest = f(xtest)


if __name__ == "__main__":
    eps = ((y - signal) / noise).ravel()
    u = jr.uniform(key=key, minval=-3.0, maxval=3.0, shape=(n,))  # tolerate: JIT502
    # observed: line 26 draws the noise from x's key: its ranks are those of x's draw
    assert bool(jnp.all(jnp.argsort(eps) == jnp.argsort(u)))
