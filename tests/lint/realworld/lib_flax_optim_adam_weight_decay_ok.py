# source: https://github.com/google/flax/commit/e32a9696b1f395b2384058184a9ca2f1efe28c37
#   ("Eliminate weight_decay guard. Was causing a JITting error when 'weight_decay' was a
#   paramater to the JITed function": flax/optim/adam.py after the fix)
# observed on jax 0.10.2 CPU: runs clean. With the `if weight_decay != 0.0:` guard gone, the
#   decay term is always computed, so `train_step` traces with the weight decay as a traced
#   hyper-parameter; later steps with a weight decay of 1e-4 and 1e-2 reuse the
#   compilation of a step with 0.0. flax.optim no
#   longer exists; added: OptimizerState and the parts of OptimizerDef that Adam uses
#   (apply_gradient, init_state, update_hyper_params, from flax/optim/base.py at the same commit,
#   with `jax.tree_flatten`/`jax.tree_map` spelled `jax.tree_util.tree_flatten` and
#   `jax.tree.map`), a jitted `train_step` with a quadratic loss and its call, standing in for
#   `Optimizer.apply_gradient(grads, weight_decay=...)` in the user's jitted function, and the
#   `__main__` check.
# gap: types
from typing import Any

import jax
import jax.numpy as jnp
import numpy as onp
from flax import struct
from jax import lax


@struct.dataclass
class OptimizerState:
  step: int
  param_states: Any


class OptimizerDef:
  """Base class for optimizers."""

  def __init__(self, hyper_params):
    self.hyper_params = hyper_params

  def apply_gradient(self, hyper_params, params, state, grads):
    step = state.step
    params_flat, treedef = jax.tree_util.tree_flatten(params)
    states_flat = treedef.flatten_up_to(state.param_states)
    grads_flat = treedef.flatten_up_to(grads)
    out = [self.apply_param_gradient(step, hyper_params, param, state, grad)
           for param, state, grad in zip(params_flat, states_flat, grads_flat)]

    new_params_flat, new_states_flat = list(zip(*out)) if out else ((), ())
    new_params = jax.tree_util.tree_unflatten(treedef, new_params_flat)
    new_param_states = jax.tree_util.tree_unflatten(treedef, new_states_flat)
    new_state = OptimizerState(step + 1, new_param_states)
    return new_params, new_state

  def init_state(self, params):
    param_states = jax.tree.map(self.init_param_state, params)
    state = OptimizerState(0, param_states)
    return state

  def update_hyper_params(self, **hyper_param_overrides):
    hp = hyper_param_overrides.pop('hyper_params', self.hyper_params)
    if hyper_param_overrides:
      hp = hp.replace(**hyper_param_overrides)
    return hp


@struct.dataclass
class _AdamHyperParams:
  learning_rate: onp.ndarray
  beta1: onp.ndarray
  beta2: onp.ndarray
  eps: onp.ndarray
  weight_decay: onp.ndarray


@struct.dataclass
class _AdamParamState:
  grad_ema: onp.ndarray
  grad_sq_ema: onp.ndarray


class Adam(OptimizerDef):
  """Adam optimizer."""

  def __init__(self,
               learning_rate=None,
               beta1=0.9,
               beta2=0.999,
               eps=1e-8,
               weight_decay=0.0):
    hyper_params = _AdamHyperParams(learning_rate, beta1, beta2, eps,
                                    weight_decay)
    super().__init__(hyper_params)

  def init_param_state(self, param):
    return _AdamParamState(jnp.zeros_like(param), jnp.zeros_like(param))

  def apply_param_gradient(self, step, hyper_params, param, state, grad):
    assert hyper_params.learning_rate is not None, 'no learning rate provided.'
    beta1 = hyper_params.beta1
    beta2 = hyper_params.beta2
    weight_decay = hyper_params.weight_decay
    grad_sq = lax.square(grad)
    grad_ema = beta1 * state.grad_ema + (1. - beta1) * grad
    grad_sq_ema = beta2 * state.grad_sq_ema + (1. - beta2) * grad_sq

    # bias correction
    t = step + 1.
    grad_ema_corr = grad_ema / (1 - beta1 ** t)
    grad_sq_ema_corr = grad_sq_ema / (1 - beta2 ** t)

    denom = jnp.sqrt(grad_sq_ema_corr) + hyper_params.eps
    new_param = param - hyper_params.learning_rate * grad_ema_corr / denom
    new_param -= hyper_params.learning_rate * weight_decay * param
    new_state = _AdamParamState(grad_ema, grad_sq_ema)
    return new_param, new_state


optimizer_def = Adam(learning_rate=0.1)


@jax.jit
def train_step(params, opt_state, weight_decay):
  grads = jax.grad(lambda p: jnp.sum(p['w'] ** 2))(params)
  hyper_params = optimizer_def.update_hyper_params(weight_decay=weight_decay)
  return optimizer_def.apply_gradient(hyper_params, params, opt_state, grads)


params = {'w': jnp.ones(3)}
opt_state = optimizer_def.init_state(params)
params, opt_state = train_step(params, opt_state, 1e-4)


if __name__ == '__main__':
  params, opt_state = train_step(params, opt_state, 0.0)
  size = train_step._cache_size()
  for wd in (1e-4, 1e-2):
    params, opt_state = train_step(params, opt_state, wd)
  assert train_step._cache_size() == size
  assert int(opt_state.step) == 4
