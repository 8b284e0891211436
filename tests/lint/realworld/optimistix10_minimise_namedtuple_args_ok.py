# source: https://github.com/patrick-kidger/optimistix/issues/10 (the reporter's snippet;
#   the TypeError of the report came from an old JAX and went away on upgrading)
# observed on jax 0.10.2 CPU (optimistix 0.1.0): runs clean. optx.minimise traces `fn`
#   under eqx.filter_jit with the NamedTuple `args` as a pytree of arrays; `jnp.where` on
#   the traced labels selects per element, with no Python branch. Added: imports, the
#   current spelling `jax.Array` for the removed `jaxlib.xla_extension.ArrayImpl`
#   annotation, and the __main__ block that solves again and checks the result.
# gap: types
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optimistix
from jax import Array as ArrayImpl


class MiniData(NamedTuple):
    X: ArrayImpl
    Y: ArrayImpl

def loss_fn_per_obs(y, p):
    return jnp.where(y==1.0, -jnp.log(p ), -jnp.log(1-p ))

def fn(params, args):
    P =  jax.nn.sigmoid(args.X @ params)
    losses = jax.vmap(loss_fn_per_obs, in_axes=(0,0))(args.Y, P)
    return jnp.mean(losses)

init_params = jax.random.normal(jax.random.PRNGKey(0), shape=(19,1))
data = MiniData(X=jax.random.normal(jax.random.PRNGKey(1), shape=(100, 19)),
                Y= jax.random.normal(jax.random.PRNGKey(2), shape=(100, 1)))
solver = optimistix.NonlinearCG(rtol=0.01, atol=0.01)
optimistix.minimise(fn=fn, solver=solver, y0 = init_params, args=data, has_aux=False)


if __name__ == "__main__":
    sol = optimistix.minimise(fn=fn, solver=solver, y0=init_params, args=data)
    assert sol.value.shape == (19, 1)
    assert bool(jnp.all(jnp.isfinite(sol.value)))
