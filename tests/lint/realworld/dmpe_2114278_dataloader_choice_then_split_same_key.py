# source: https://github.com/ExcitingSystems/DMPE/blob/211427875f2a5c637a062c8332d4828a9790caab/exciting_exciting_systems/models/model_training.py
#   (dataloader, the generator of training batches for the neural ODE models)
# observed on jax 0.10.2 CPU: each batch draws its starting points from `key` with
#   jax.random.choice and then splits the same, already consumed key for the next batch.
#   choice (through randint) splits the key it is given and draws from the first half;
#   with the default partitionable threefry split(key, 1)[0] is that same first half, so
#   the key of the next batch is a key the previous draw already used. Under
#   jax.debug_key_reuse with a typed key the split raises KeyReuseError. Added: a memory
#   dict of random observations/actions, sizes, and the __main__ block.
# gap: other
import traceback

import jax
import jax.numpy as jnp


def dataloader(memory, batch_size, sequence_length, key):
    observations, actions = memory.values()
    observations = jnp.stack(observations, axis=0)
    actions = jnp.stack(actions, axis=0)
    dataset_size = observations.shape[0]

    assert actions.shape[0] == dataset_size - 1

    indices = jnp.arange(dataset_size - sequence_length)

    while True:
        starting_points = jax.random.choice(key=key, a=indices, shape=(batch_size,), replace=True)
        (key,) = jax.random.split(key, 1)  # expect: JIT502

        slice = jnp.linspace(
            start=starting_points,
            stop=starting_points+sequence_length,
            num=sequence_length,
            dtype=int
        ).T

        batched_observations = observations[slice]
        batched_actions = actions[slice]

        yield tuple([batched_observations, batched_actions])


obs_key, act_key, loader_key = jax.random.split(jax.random.PRNGKey(0), 3)
memory = {
    "observations": list(jax.random.uniform(obs_key, (50, 2))),
    "actions": list(jax.random.uniform(act_key, (49, 1))),
}
loader = dataloader(memory, batch_size=8, sequence_length=5, key=loader_key)
batch_obs, batch_act = next(loader)


if __name__ == "__main__":
    # the key of the next batch is the first half of the split that choice drew from
    assert jnp.array_equal(jax.random.split(loader_key, 1)[0], jax.random.split(loader_key, 2)[0])
    with jax.debug_key_reuse(True):
        try:
            next(dataloader(memory, 8, 5, jax.random.key(0)))  # tolerate: JIT502
            raise AssertionError("no KeyReuseError")
        except jax.errors.KeyReuseError as e:
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
            assert frames[-1].lineno == 29, frames
    # observed: line 29 splits the key that jax.random.choice has just consumed
