# source: https://github.com/SwarmRL/SwarmRL/blob/ee49e600162c5a60279e9e2aefc522cabfbd61aa/swarmrl/sampling_strategies/categorical_distribution.py
# observed on jax 0.10.2 CPU: see the per-line observed comments; both the action sampler and the jitted exploration policy consume one PRNG key twice
# gap: other
# Second class from the same commit: swarmrl/exploration_policies/random_exploration.py.
# Both classes verbatim except: docstrings shortened, the SamplingStrategy /
# DiscreteExplorationPolicy base classes dropped (abstract interfaces only), and a
# __main__ block added that turns on typed keys + jax_debug_key_reuse to show the reuse.
from functools import partial

import jax
import jax.numpy as np
import numpy as onp


class CategoricalDistribution:
    """
    Class for the Gumbel distribution.
    """

    def __init__(self, noise: str = "none"):
        noise_dict = {
            "uniform": jax.random.uniform,
            "gaussian": jax.random.normal,
            "none": None,
        }
        try:
            self.noise = noise_dict[noise]
        except KeyError:
            msg = (
                f"Parsed noise method {noise} is not implemented, please choose"
                "from 'none', 'gaussian' and 'uniform'."
            )
            raise KeyError(msg)

    def __call__(self, logits: np.ndarray, rng_key=None) -> np.ndarray:
        """
        Sample from the distribution.
        """
        rng = (
            jax.random.PRNGKey(onp.random.randint(0, 1236534623))
            if rng_key is None
            else rng_key
        )

        try:
            noise = self.noise(rng, shape=logits.shape)
        except TypeError:
            # If set to None the noise is just 0
            noise = 0

        indices = jax.random.categorical(rng, logits=logits + noise)  # expect: JIT502

        return indices


class RandomExploration:
    """
    Perform exploration by random moves.
    """

    def __init__(self, probability: float = 0.1):
        self.probability = probability

    @partial(jax.jit, static_argnums=(0,))
    def __call__(
        self, model_actions: np.ndarray, action_space_length: int, seed
    ) -> np.ndarray:
        """
        Return an index associated with the chosen action.
        """
        key = jax.random.PRNGKey(seed)
        sample = jax.random.uniform(key, shape=model_actions.shape)

        to_be_changed = np.clip(sample - self.probability, min=0, max=1)
        to_be_changed = np.clip(to_be_changed * 1e6, min=0, max=1)
        not_to_be_changed = np.clip(to_be_changed * -10 + 1, 0, 1)

        # Choose random actions
        key, subkey = jax.random.split(key)  # expect: JIT502
        exploration_actions = jax.random.randint(
            subkey,
            shape=(model_actions.shape[0],),
            minval=0,
            maxval=action_space_length,
        )

        # Put the new actions in.
        model_actions = (
            model_actions * to_be_changed + exploration_actions * not_to_be_changed
        ).astype(np.int16)

        return model_actions


def _error_line(fn):
    import traceback
    try:
        fn()
    except jax.errors.KeyReuseError:
        frames = [f for f in traceback.extract_tb(__import__("sys").exc_info()[2])
                  if f.filename == __file__]
        return frames[-1].lineno
    return None


if __name__ == "__main__":
    # Typed keys so that JAX's key-reuse checker can track PRNGKey(...) keys.
    jax.config.update("jax_enable_custom_prng", True)
    jax.config.update("jax_debug_key_reuse", True)

    logits = np.zeros((5, 4))
    sampler = CategoricalDistribution(noise="uniform")
    # observed: line 51 KeyReuseError: rng already consumed by the uniform noise draw is passed to categorical
    line = _error_line(lambda: sampler(logits, rng_key=jax.random.PRNGKey(1)))
    print("sampler key reuse at line", line)
    assert line == 51, line

    explorer = RandomExploration(probability=0.5)
    # (under jit the checker reports it at the call; run the same method op by op to get the line)
    # observed: line 79 KeyReuseError: key already consumed by jax.random.uniform is split again
    with jax.disable_jit():
        line = _error_line(lambda: explorer(np.zeros(5, dtype=np.int32), 4, 7))
    try:
        explorer(np.zeros(5, dtype=np.int32), 4, 7)
        raise AssertionError("no KeyReuseError under jit")
    except jax.errors.KeyReuseError as e:
        print("under jit:", str(e).splitlines()[0])
    print("exploration key reuse at line", line)
    assert line == 79, line
