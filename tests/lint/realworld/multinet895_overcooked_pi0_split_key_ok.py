# source: https://github.com/ManifoldRG/MultiNet/pull/895 (src/eval/profiling/openpi/scripts/overcooked_inference.py at e170d5c01d63dafdc6779e5207e99848dbeb6873, the fix commit, OvercookedInference.evaluate_model)
# observed on jax 0.10.2 CPU: runs clean; each batch splits a fresh subkey, so batch 1 and batch 2 get different flow-matching noise
# gap: flow-sensitive
# added: imports; StandInPi0 (stand-in for openpi's pi0.Pi0.sample_actions: draws the initial noise from rng and integrates a dummy velocity, recording the noise), Observation stand-in, a tiny list-of-dicts dataloader, prepare_observation/process_output reduced to what the loop needs; the metrics bookkeeping after the prediction, dataset-stats loading and memory management of the loop are elided
# the __main__ block is added
import time

import jax
import jax.numpy as jnp
import numpy as np


class Observation:
    def __init__(self, state):
        self.state = state

    @classmethod
    def from_dict(cls, d):
        return cls(jnp.asarray(d["state"]))


class StandInPi0:
    action_horizon = 4
    action_dim = 32

    def __init__(self):
        self.noises = []

    def sample_actions(self, rng, observation, *, num_steps=10):
        dt = -1.0 / num_steps
        batch_size = observation.state.shape[0]
        noise = jax.random.normal(rng, (batch_size, self.action_horizon, self.action_dim))
        self.noises.append(noise)
        x_t = noise
        for _ in range(num_steps):
            x_t = x_t + dt * (x_t - observation.state[:, None, :1])
        return x_t


class OvercookedInference:
    num_discrete_actions = 36

    def prepare_observation(self, obs_dict, batch_size, time_left, time_elapsed, max_token_length=48):
        return {"state": np.zeros((batch_size, 1), dtype=np.float32)}

    def process_output(self, actions, dataset_stats):
        actions = np.array(actions)
        actions = actions[..., 0:1]
        discrete_actions = np.round(actions, 0).astype(int)
        return discrete_actions

    def evaluate_model(self, model, key, config, dataloader, dataset_name: str, output_dir: str = None, max_samples: int = None, data_file: str = None, batch_size: int = 5) -> dict:
        """Evaluate the model on the Overcooked dataset."""
        counter = 0
        dataset_stats = {}
        total_batches = len(dataloader)
        start_time = time.perf_counter()
        samples_processed = 0
        all_preds = []

        for batch in dataloader:
            key, subkey = jax.random.split(key)
            actual_batch_size = len(batch['image_observation'])
            # Check if we've reached max_samples limit
            if max_samples is not None and samples_processed + actual_batch_size > max_samples:
                # Process only remaining samples from this batch
                remaining = max_samples - samples_processed
                if remaining <= 0:
                    break
                # Truncate batch to remaining samples
                for feature in batch:
                    if isinstance(batch[feature], list):
                        batch[feature] = batch[feature][:remaining]
                    elif hasattr(batch[feature], '__len__'):
                        batch[feature] = batch[feature][:remaining]
                actual_batch_size = remaining
            obs = {
                'image_observation': batch['image_observation'],
                'text_observation': batch['text_observation']
            }
            # Extract temporal information for Genesis-style prompts
            time_left_batch = batch['time_left']
            time_elapsed_batch = batch['time_elapsed']

            # Transform observation with Genesis-style prompts including temporal context
            transformed_dict = self.prepare_observation(
                obs,
                batch_size=actual_batch_size,
                time_left=time_left_batch,
                time_elapsed=time_elapsed_batch,
                max_token_length=config.max_token_len
            )
            observation = Observation.from_dict(transformed_dict)

            # Sample actions for entire batch
            actions = model.sample_actions(subkey, observation, num_steps=10)
            unnormalized_discrete_actions = self.process_output(actions, dataset_stats)

            counter += 1
            samples_processed += actual_batch_size
            all_preds.append(unnormalized_discrete_actions)

        return all_preds


if __name__ == "__main__":
    class Config:
        max_token_len = 48

    batch = lambda: {
        'image_observation': [np.zeros((8, 8, 3))] * 2,
        'text_observation': ["layout"] * 2,
        'time_left': [10.0] * 2,
        'time_elapsed': [1.0] * 2,
        'action': [0, 1],
    }
    dataloader = [batch(), batch()]
    model = StandInPi0()
    OvercookedInference().evaluate_model(model, jax.random.key(0), Config(), dataloader, "overcooked")
    same = bool(jnp.array_equal(model.noises[0], model.noises[1]))
    print("noise of batch 1 == noise of batch 2:", same)
    assert not same
