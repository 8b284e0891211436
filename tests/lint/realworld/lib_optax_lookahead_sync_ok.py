# source: https://github.com/google-deepmind/optax/blob/v0.2.8/optax/_src/lookahead.py
#   (LookaheadState, LookaheadParams, lookahead and _lookahead_update, optax 0.2.8 as released)
# observed on jax 0.10.2 CPU: runs clean with the lookahead update under jax.jit for several
#   steps: the Python `if`s test sync_period, reset_state and the presence of `params.fast`
#   (all static), and the synchronisation every sync_period steps is done arithmetically with
#   the traced `sync_next` flag: after each sync the fast and slow parameters are equal, in
#   between only the fast ones move. Changed: the licence header and module docstring dropped.
#   Added: the __main__ block.
# gap: exemption-vs-JAX
from typing import NamedTuple

from absl import logging
import jax
import jax.numpy as jnp
from optax._src import base


class LookaheadState(NamedTuple):
  """State of the `GradientTransformation` returned by `lookahead`.

  Attributes:
    fast_state: Optimizer state of the fast optimizer.
    steps_since_sync: Number of fast optimizer steps taken since slow and fast
      parameters were synchronized.
  """

  fast_state: base.OptState
  steps_since_sync: jax.Array


class LookaheadParams(NamedTuple):
  """Holds a pair of slow and fast parameters for the lookahead optimizer.

  Gradients should always be calculated with the fast parameters (i.e.,
  `params.fast`). The slow parameters should be used for testing and inference
  as they generalize better. See the reference for a detailed discussion.

  Attributes:
    fast: Fast parameters (use these for gradient computation).
    slow: Slow parameters (use these for inference).

  References:
    Zhang et al, `Lookahead Optimizer: k steps forward, 1 step back
    <https://arxiv.org/abs/1907.08610>`_, 2019
  """

  fast: base.Params
  slow: base.Params

  @classmethod
  def init_synced(cls, params: base.Params) -> 'LookaheadParams':
    """Initialize a pair of synchronized lookahead parameters."""
    return cls(slow=params, fast=params)


def lookahead(
    fast_optimizer: base.GradientTransformation,
    sync_period: jax.typing.ArrayLike,  # int
    slow_step_size: jax.typing.ArrayLike,  # float
    reset_state: bool = False,
) -> base.GradientTransformation:
  """Lookahead optimizer.

  Performs steps with a fast optimizer and periodically updates a set of slow
  parameters. Optionally resets the fast optimizer state after synchronization
  by calling the init function of the fast optimizer.

  Updates returned by the lookahead optimizer should not be modified before they
  are applied, otherwise fast and slow parameters are not synchronized
  correctly.

  Args:
    fast_optimizer: The optimizer to use in the inner loop of lookahead.
    sync_period: Number of fast optimizer steps to take before synchronizing
      parameters. Must be >= 1.
    slow_step_size: Step size of the slow parameter updates.
    reset_state: Whether to reset the optimizer state of the fast optimizer
      after each synchronization.

  Returns:
    A :class:`optax.GradientTransformation` with init and update functions. The
    updates passed to the update function should be calculated using the fast
    lookahead parameters only.

  Example:
    >>> import optax
    >>> import jax
    >>> import jax.numpy as jnp
    >>> fast_opt = optax.sgd(1e-2)
    >>> opt = optax.lookahead(fast_opt, sync_period=5, slow_step_size=0.5)
    >>> params = optax.LookaheadParams.init_synced(jnp.ones((2,)))
    >>> state = opt.init(params)
    >>> loss_fn = lambda p: jnp.sum(p**2)
    >>> # Calculate gradients wrt the fast parameters
    >>> grads = jax.grad(loss_fn)(params.fast)
    >>> updates, state = opt.update(grads, state, params)
    >>> params = optax.apply_updates(params, updates)
    >>> # Calculate the eval loss wrt the slow parameters
    >>> loss_fn(params.slow)
    Array(2., dtype=float32)

  References:
    Zhang et al, `Lookahead Optimizer: k steps forward, 1 step back
    <https://arxiv.org/abs/1907.08610>`_, 2019
  """
  if sync_period < 1:
    raise ValueError('Synchronization period must be >= 1.')

  def init_fn(params: base.Params) -> LookaheadState:
    fast_params = getattr(params, 'fast', None)
    if fast_params is None:
      # Allowing init_fn to be called with fast parameters reduces the
      # modifications necessary to adapt code to use lookahead in some cases.
      logging.warning(
          '`params` has no attribute `fast`. Continuing by assuming that '
          'only fast parameters were passed to lookahead init.'
      )
      fast_params = params

    return LookaheadState(
        fast_state=fast_optimizer.init(fast_params),
        steps_since_sync=jnp.zeros(shape=(), dtype=jnp.int32),
    )

  def update_fn(
      updates: base.Updates, state: LookaheadState, params: LookaheadParams
  ) -> tuple[LookaheadParams, LookaheadState]:
    updates, fast_state = fast_optimizer.update(
        updates, state.fast_state, params.fast
    )

    sync_next = state.steps_since_sync == (sync_period - 1)
    updates = _lookahead_update(updates, sync_next, params, slow_step_size)
    if reset_state:
      # Jittable way of resetting the fast optimizer state if parameters will be
      # synchronized after this update step.
      initial_state = fast_optimizer.init(params.fast)
      fast_state = jax.tree.map(
          lambda current, init: (1 - sync_next) * current + sync_next * init,
          fast_state,
          initial_state,
      )

    steps_since_sync = (state.steps_since_sync + 1) % sync_period
    return updates, LookaheadState(fast_state, steps_since_sync)

  return base.GradientTransformation(init_fn, update_fn)


def _lookahead_update(
    updates: base.Updates,
    sync_next: jax.typing.ArrayLike,  # bool
    params: LookaheadParams,
    slow_step_size: jax.typing.ArrayLike,  # float
) -> LookaheadParams:
  """Returns the updates corresponding to one lookahead step.

  Args:
    updates: Updates returned by the fast optimizer.
    sync_next: Wether fast and slow parameters should be synchronized after the
      fast optimizer step.
    params: Current fast and slow parameters as `LookaheadParams` object.
    slow_step_size: Step size of the slow optimizer.

  Returns:
    The updates for the lookahead parameters.

  References:
    Zhang et al, `Lookahead Optimizer: k steps forward, 1 step back
    <https://arxiv.org/abs/1907.08610>`_, 2019
  """
  # In the paper, lookahead is presented as two nested loops. To write lookahead
  # as optax wrapper, these loops have to be broken into successive updates.
  # This leads to two types of update steps:
  #
  # Non-synchronization steps (sync_next == False):
  # The updates returned by the fast optimizer are used for the fast parameters
  # without change and the slow parameter updates are zero (i.e. fast_updates =
  # updates, slow_updates = 0).
  #
  # Synchronization step (sync_next == True):
  # This consists of two substeps: a last fast optimizer step and the
  # synchronization.
  #   Substep 1 (last fast optimizer step):
  #     last_fast_params = fast_params + updates
  #   Substep 2 (synchronization):
  #     new_slow_params = slow_params + slow_step_size * (
  #                       last_fast_params - slow_params)
  #     new_fast_params = new_slow_params
  #
  #   Merging into a single update step we get the update rules:
  #     slow_updates = slow_step_size * (fast_params + updates - slow_params)
  #     fast_updates = new_slow_params - fast_params = updates - (1 -
  #       slow_step_size) * (fast_params + updates - slow_params)
  #
  # To make the equations jittable, the two types of steps are merged. Defining
  # last_difference = fast_params + updates - slow_params, this yields the
  # following equations which are implemented below:
  #   slow_updates = slow_step_size * sync_next * last_difference
  #   fast_updates = updates - (
  #                  1 - slow_step_size) * sync_next * last_difference
  last_difference = jax.tree.map(
      lambda f, u, s: f + u - s, params.fast, updates, params.slow
  )
  slow_updates = jax.tree.map(
      lambda diff: slow_step_size * sync_next * diff, last_difference
  )
  fast_updates = jax.tree.map(
      lambda up, diff: up - sync_next * (1 - slow_step_size) * diff,
      updates,
      last_difference,
  )

  return LookaheadParams(fast=fast_updates, slow=slow_updates)


if __name__ == "__main__":
  import optax

  def loss_fn(p):
    return jnp.sum((p - 3.0) ** 2)

  for reset_state in (False, True):
    opt = lookahead(optax.adam(0.1), sync_period=3, slow_step_size=0.5,
                    reset_state=reset_state)
    params = LookaheadParams.init_synced(jnp.zeros(2))
    state = opt.init(params)

    @jax.jit
    def step(params, state):
      grads = jax.grad(loss_fn)(params.fast)
      updates, state = opt.update(grads, state, params)
      return optax.apply_updates(params, updates), state

    slow0 = params.slow
    for i in range(1, 7):
      params, state = step(params, state)
      if i % 3 == 0:
        assert jnp.allclose(params.fast, params.slow), (i, params)
        assert not jnp.allclose(params.slow, slow0)
        slow0 = params.slow
      else:
        assert not jnp.allclose(params.fast, params.slow), (i, params)
        assert jnp.array_equal(params.slow, slow0)
    assert int(state.steps_since_sync) == 0
    assert step._cache_size() == 1
    assert loss_fn(params.slow) < loss_fn(jnp.zeros(2))

  try:
    lookahead(optax.sgd(0.1), sync_period=0, slow_step_size=0.5)
  except ValueError:
    pass
  else:
    raise AssertionError("sync_period=0 accepted")
  print("ok")
