# source: https://github.com/google/maxtext/blob/e64f6813e0e22b57395f070741d24948029a59ba/MaxText/max_utils.py
# observed on jax 0.10.2 CPU: the warmup + cosine + zero schedule that
#   create_learning_rate_schedule builds from Python config values (the `int(...)` reads
#   config floats, not tracers) is evaluated by optax with the traced step count inside a
#   jitted train step, and jitted on its own it matches the eager values at every step,
#   across all three pieces. create_learning_rate_schedule is kept verbatim; the config is a
#   namespace of the fields it reads, and a small optax.adam train step on a quadratic stands
#   in for MaxText's train step (which builds its optimizer with this schedule).
# gap: other
import types

import jax
import jax.numpy as jnp
import numpy as np
import optax


def create_learning_rate_schedule(config):
  """Creates a warmup and cosine decay learning rate schedule:
  We take inspiration from Llama2's learning rate (LR) schedule, see https://arxiv.org/pdf/2307.09288.pdf section 2.2
  Learning rate schedule has either two or three parts:
  1) Linear warmup from 0 to [learning_rate] over steps 0 to [learning_rate_schedule_steps * warmup_steps_fraction]
  2) Cosine from [learning_rate] to [learning_rate * cosine_learning_rate_final_fraction] until learning_rate_schedule_steps
  3) Constant learning rate of 0 from learning_rate_schedule_steps to steps.
  The zero learning rate section can be used to more accurately measure the fully trained model's performance.
  """

  def make_cos_schedule(init_lr, final_lr, len_steps):
    def schedule(step):
      pct = (step) / len_steps
      a = 0.5 * (jnp.cos(jnp.pi * pct) + 1)
      lr = init_lr * a + final_lr * (1 - a)
      return lr

    return schedule

  lr = config.learning_rate
  cos_final_lr = lr * config.cosine_learning_rate_final_fraction

  warmup_steps = int(config.learning_rate_schedule_steps * config.warmup_steps_fraction)
  cos_steps = config.learning_rate_schedule_steps - warmup_steps
  constant_zero_steps = config.steps - config.learning_rate_schedule_steps

  warmup_schedule = optax.linear_schedule(init_value=0.0, end_value=lr, transition_steps=warmup_steps)
  cos_schedule = make_cos_schedule(lr, cos_final_lr, cos_steps)
  constant_schedule = optax.constant_schedule(0.0)

  pieces = [warmup_schedule, cos_schedule]
  boundaries = [
      warmup_steps,
      warmup_steps + cos_steps,
  ]

  if constant_zero_steps > 0:
    pieces.append(constant_schedule)
    boundaries.append(warmup_steps + cos_steps + constant_zero_steps)

  return optax.join_schedules(pieces, boundaries)


if __name__ == "__main__":
  config = types.SimpleNamespace(
      learning_rate=3e-4,
      cosine_learning_rate_final_fraction=0.1,
      learning_rate_schedule_steps=100,
      warmup_steps_fraction=0.1,
      steps=120,
  )
  schedule = create_learning_rate_schedule(config)
  jitted_schedule = jax.jit(schedule)
  for step in [0, 5, 10, 50, 99, 100, 110, 119]:
    np.testing.assert_allclose(jitted_schedule(step), schedule(step), rtol=1e-5, atol=1e-9)

  tx = optax.adam(schedule)
  params = {"w": jnp.ones((3,))}
  opt_state = tx.init(params)

  @jax.jit
  def train_step(params, opt_state):
    loss, grads = jax.value_and_grad(lambda p: jnp.sum(p["w"] ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  for _ in range(config.steps):
    params, opt_state, loss = train_step(params, opt_state)
  print(float(loss), float(jitted_schedule(config.steps - 1)))
