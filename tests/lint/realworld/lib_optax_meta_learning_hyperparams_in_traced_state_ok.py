# source: https://github.com/google-deepmind/optax/blob/4310c633583f00df5c8c7f7220e1c9da087b3b3a/examples/meta_learning.ipynb
#   (optax's meta-learning example after "Remove useless inner jit": the code cells)
# observed on jax 0.10.2 CPU (optax 0.2.8): runs clean; outer_step is compiled once and
#   the meta-learned learning rate moves away from 0.1 over the 2000 steps. The write
#   `state.hyperparams['learning_rate'] = ...` goes into the pytree outer_loss is given
#   (rebuilt by jit on each trace), not into the caller's opt_state. Added: `chex.Array`
#   annotations are spelled `jax.Array` (chex is not installed); left out: the matplotlib
#   plotting cell and the cell printing five samples.
# gap: exemption-vs-JAX
from typing import Callable, Iterator, Tuple
import jax
import jax.numpy as jnp
import numpy as np
import optax


def generator() -> Iterator[Tuple[jax.Array, jax.Array]]:
  rng = jax.random.PRNGKey(0)

  while True:
    rng, k1, k2 = jax.random.split(rng, num=3)
    x = jax.random.uniform(k1, minval=0.0, maxval=10.0)
    y = 10.0 * x + jax.random.normal(k2)
    yield x, y


g = generator()


def f(theta: jax.Array, x: jax.Array) -> jax.Array:
  return x * theta

theta = jax.random.normal(jax.random.PRNGKey(42))

init_learning_rate = jnp.array(0.1)
meta_learning_rate = jnp.array(0.03)

opt = optax.inject_hyperparams(optax.rmsprop)(learning_rate=init_learning_rate)
meta_opt = optax.adam(learning_rate=meta_learning_rate)


def loss(theta, x, y):
  return optax.l2_loss(y, f(theta, x))


def step(theta, state, x, y):
  grad = jax.grad(loss)(theta, x, y)
  updates, state = opt.update(grad, state)
  theta = optax.apply_updates(theta, updates)
  return theta, state


def outer_loss(eta, theta, state, samples):
  state.hyperparams['learning_rate'] = jax.nn.sigmoid(eta)

  for x, y in samples[:-1]:
    theta, state = step(theta, state, x, y)

  x, y = samples[-1]

  return loss(theta, x, y), (theta, state)


@jax.jit
def outer_step(eta, theta, meta_state, state, samples):
  grad, (theta, state) = jax.grad(
      outer_loss, has_aux=True)(eta, theta, state, samples)

  meta_updates, meta_state = meta_opt.update(grad, meta_state)
  eta = optax.apply_updates(eta, meta_updates)

  return eta, theta, meta_state, state


state = opt.init(theta)
# inverse sigmoid, to match the value we initialized the inner optimizer with.
eta = -np.log(1. / init_learning_rate - 1)
meta_state = meta_opt.init(eta)

N = 7
learning_rates = []
thetas = []

for i in range(2000):
  samples = [next(g) for i in range(N)]
  eta, theta, meta_state, state = outer_step(eta, theta, meta_state, state, samples)
  learning_rates.append(jax.nn.sigmoid(eta))
  thetas.append(theta)


if __name__ == "__main__":
  import jax.monitoring

  assert len(learning_rates) == 2000
  assert abs(float(learning_rates[-1]) - 0.1) > 1e-3, learning_rates[-1]
  assert not isinstance(state.hyperparams['learning_rate'], jax.core.Tracer)
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  for i in range(3):
    samples = [next(g) for i in range(N)]
    eta, theta, meta_state, state = outer_step(eta, theta, meta_state, state, samples)
  assert "jit(outer_step)" not in compiles, compiles
