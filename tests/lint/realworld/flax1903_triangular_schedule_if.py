# source: https://github.com/google/flax/pull/1903 (the learning-rate schedule of the former
#   Flax HOWTO, which "did not play well with jit")
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if cycle_step < top:` when
#   optax calls the schedule with the traced step count inside the jitted train step.
#   The train step around it is the smallest one that runs.
# gap: other
import jax
import jax.numpy as jnp
import optax


def create_triangular_schedule(lr_min, lr_max, steps_per_cycle):
  top = (steps_per_cycle + 1) // 2
  def learning_rate_fn(step):
    cycle_step = step % steps_per_cycle
    if cycle_step < top:  # expect: JIT101
      lr = lr_min + cycle_step/top * (lr_max - lr_min)
    else:
      lr = lr_max - ((cycle_step - top)/top) * (lr_max - lr_min)
    return lr
  return learning_rate_fn


learning_rate_fn = create_triangular_schedule(3e-3, 3e-2, 2 * 100)
tx = optax.sgd(learning_rate_fn)
params = {"w": jnp.ones(3)}
opt_state = tx.init(params)


@jax.jit
def train_step(params, opt_state):
  grads = jax.grad(lambda p: jnp.sum(p["w"] ** 2))(params)
  updates, opt_state = tx.update(grads, opt_state, params)
  return optax.apply_updates(params, updates), opt_state


train_step(params, opt_state)
