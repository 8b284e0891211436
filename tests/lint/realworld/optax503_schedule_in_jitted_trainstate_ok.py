# source: https://github.com/google-deepmind/optax/issues/503 (the reporter's repro; the
#   library fix, google-deepmind/optax#504, made not_ok_example clean)
# observed on jax 0.10.2 CPU with optax 0.2.8 and flax 0.12: both run clean under jit and
#   jax.check_tracer_leaks(). (`import time` added: the report uses time.sleep.)
# gap: exemption-vs-JAX
import time

import jax
import optax
from flax.training.train_state import TrainState
from jax import numpy as jnp


@jax.jit
def ok_example() -> TrainState:
    return TrainState.create(
        apply_fn=lambda *_: None,
        params=jnp.zeros(5),
        tx=optax.scale_by_schedule(
            optax.linear_schedule(init_value=0.0, end_value=1.0, transition_steps=100)
        ),
    )


@jax.jit
def not_ok_example() -> TrainState:
    return TrainState.create(
        apply_fn=lambda *_: None,
        params=jnp.zeros(5),
        tx=optax.scale_by_schedule(
            optax.piecewise_interpolate_schedule(
                "linear", init_value=1.0, boundaries_and_scales={10: 2.0}
            )
        ),
    )


with jax.check_tracer_leaks():
    ok_example()
    print("First example OK!")

time.sleep(1.0)

with jax.check_tracer_leaks():
    not_ok_example()  # Fails.
    print("Second example OK!")
