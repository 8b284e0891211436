# source: https://github.com/google-deepmind/optax/blob/47404ab6daee4ae45cb2dca04dd2f5ebf769dd5b/optax/contrib/momo.py
#   (momo after "make if condition jittable": the first-step branch is a lax.cond)
# observed on jax 0.10.2 CPU: runs clean under jit and converges to the parabola's minimum.
#   The license header and momo's long docstring are left out; `chex.Array` is spelled
#   `jax.Array` (chex is not installed); the driver is the test's step and parabola target
#   (optax/contrib/momo_test.py at the same commit).
# gap: exemption-vs-JAX
from typing import NamedTuple, Optional
import jax
import jax.numpy as jnp
import jax.tree_util as tu
from jax import Array
from jax.lax import cond
from optax import tree_utils
from optax._src import base
from optax._src import utils

class MomoState(NamedTuple):
  """State of the `GradientTransformation` returned by `momo`."""
  exp_avg: base.Updates
  barf: float
  gamma: float
  count: jax.Array

def momo(
    learning_rate: base.ScalarOrSchedule = 1.0,
    beta: float = 0.9,
    lb: float = 0.0,
    weight_decay: float = 0,
    delta: float = 1e-10
) -> base.GradientTransformationExtraArgs:
  """Adaptive Learning Rates for SGD with momentum."""
  def init_fn(params: base.Params) -> MomoState:
    exp_avg = tu.tree_map(lambda p: jnp.zeros(p.shape), params)
    barf = 0
    gamma = 0
    count = jnp.zeros([], jnp.int32)
    return MomoState(exp_avg, barf, gamma, count)

  def update_fn(
      updates: base.Updates,
      state: MomoState,
      params: Optional[base.Params],
      loss: Optional[Array] = None) -> tuple[base.Updates, MomoState]:
    if params is None:
      raise ValueError(base.NO_PARAMS_MSG)
    if loss is None:
      raise ValueError("""You need to pass the latest loss value to Momo.
                       Use `jax.value_and_grad` for this.""")
    count = state.count
    # initialize at first gradient, and loss
    bt = cond(count == 0, lambda: 0., lambda: beta)
    barf = bt*state.barf + (1-bt)*loss
    exp_avg = tu.tree_map(
      lambda ea, g: bt*ea + (1-bt)*g,
      state.exp_avg,
      updates
      )
    gamma = bt*state.gamma + (1-bt)*tree_utils.tree_vdot(updates, params)
    exp_avg_norm = tree_utils.tree_l2_norm(exp_avg,squared=True)
    iprod = tree_utils.tree_vdot(exp_avg, params)
    alpha = learning_rate(count) if callable(learning_rate) else learning_rate
    t1 = jnp.maximum((1+alpha*weight_decay)*(
                            barf - lb - gamma
                            )  + iprod , 0)/(exp_avg_norm+delta)
    tau = jnp.minimum(alpha, t1)
    p_update = tu.tree_map(
      lambda ea, p:
      -(alpha*weight_decay)/(1+alpha*weight_decay)*p
      - tau*ea,
      exp_avg, params
    )
    new_state = MomoState(
      exp_avg=exp_avg,
      barf=barf,
      gamma=gamma,
      count=utils.safe_int32_increment(count)
    )
    return p_update, new_state

  return base.GradientTransformationExtraArgs(init_fn, update_fn)

# the step of optax/contrib/momo_test.py, jitted by the same commit
from optax._src import numerics
from optax._src import update


def _setup_parabola(dtype):
  """Quadratic function as an optimization target."""
  initial_params = jnp.array([-1.0, 10.0, 1.0], dtype=dtype)
  final_params = jnp.array([1.0, -1.0, 1.0], dtype=dtype)

  @jax.value_and_grad
  def get_updates(params):
    return jnp.sum(numerics.abs_sq(params - final_params))

  return initial_params, final_params, get_updates


if __name__ == "__main__":
  opt = momo()
  initial_params, final_params, get_updates = _setup_parabola(jnp.float32)
  @jax.jit
  def step(params, state):
    loss, updates = get_updates(params)
    updates, state = opt.update(updates, state, params, loss)
    params = update.apply_updates(params, updates)
    return params, state

  params = initial_params
  state = opt.init(params)
  for _ in range(1500):
    params, state = step(params, state)
  assert jnp.allclose(params, final_params, rtol=1e-1, atol=1e-1), params
