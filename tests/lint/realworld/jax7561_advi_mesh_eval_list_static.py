# source: https://github.com/jax-ml/jax/issues/7561 (examples/advi.py: mesh_eval and the
#   callback's first call of it, as in the traceback of the report)
# observed on jax 0.10.2 CPU: ValueError: Non-hashable static arguments are not supported
#   (x_limits = [-2, 2], a list, in static position 1). Added: the imports in their current
#   spelling (jax.api -> jax), and the callback's call at module level.
# gap: static-hashability
from functools import partial

from jax import jit, vmap
import jax.numpy as np
import jax.scipy.stats.norm as norm


@partial(jit, static_argnums=(0, 1, 2, 4))
def mesh_eval(func, x_limits, y_limits, params, num_ticks=101):
    # Evaluate func on a 2D grid defined by x_limits and y_limits.
    x = np.linspace(*x_limits, num=num_ticks)
    y = np.linspace(*y_limits, num=num_ticks)
    X, Y = np.meshgrid(x, y)
    xy_vec = np.stack([X.ravel(), Y.ravel()]).T
    zs = vmap(func, in_axes=(0, None))(xy_vec, params)
    return X, Y, zs.reshape(X.shape)


def funnel_log_density(params):
    return norm.logpdf(params[0], 0, np.exp(params[1])) + \
           norm.logpdf(params[1], 0, 1.35)


x_limits = [-2, 2]
y_limits = [-4, 2]
target_dist = lambda x, _: np.exp(funnel_log_density(x))

X, Y, Z = mesh_eval(target_dist, x_limits, y_limits, 1)  # expect: JIT302
