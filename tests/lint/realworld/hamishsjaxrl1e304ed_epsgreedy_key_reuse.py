# source: https://github.com/hamishs/JAX-RL/blob/1e304ed19cc9d61402ddbeb99a3e707fe4b87161/src/jax_rl/policies.py
# observed on jax 0.10.2 CPU: the explore/exploit coin (uniform) and the random action (randint) are drawn from the same key, so JAX's key-reuse checker raises KeyReuseError at the randint line
# gap: flow-sensitive
# (added: the __main__ block; it passes a typed key (jax.random.key) and turns on jax_debug_key_reuse so JAX's own checker reports the reuse)
# observed: line 58 jax.random.randint consumes the key that jax.random.uniform already consumed on the line above; with a typed key and jax_debug_key_reuse JAX raises KeyReuseError at this line
from abc import ABC, abstractmethod

import jax
import jax.numpy as jnp


class Policy(ABC):
    """Policy base class."""

    def __init__(self):
        pass

    def __call__(self, *args, **kwargs):
        return self.call(*args, **kwargs)

    @abstractmethod
    def call(self, key, q_values, exploration=True, return_distribution=False):
        pass


class EpsilonGreedy(Policy):
    """Greedy/random policy with probability epsilon/1-epsilon."""

    def __init__(self, epsilon):
        super(EpsilonGreedy, self).__init__()
        """ epsilon : float or callable giving exploration rate."""
        self.epsilon = epsilon
        self.t = 0  # step counter

    def call(self, key, q_values, exploration=True, return_distribution=False):
        """
        key : jax.random.PRNGKey.
        state : jnp.array (1, n_states) - current state.
        n_actions : int - number of actions.
        q_values : (n_actions) - estimated q-values for the current state.
        exploration : bool = True - wether to allow exploration or to be greedy.
        return distribution : bool = False - whether to return the distribution
        over actions.
        """
        n_actions = q_values.shape[0]
        if return_distribution:
            dist = (
                jnp.ones(
                    n_actions,
                )
                * self.epsilon
                / n_actions
            )
            return dist.at[jnp.argmax(q_values)].add(1.0 - self.epsilon)
        self.t += 1
        eps = self.epsilon(self.t) if callable(self.epsilon) else self.epsilon
        if exploration and (jax.random.uniform(key, shape=(1,))[0] > 1 - eps):
            idx = jax.random.randint(key, shape=(1,), minval=0, maxval=n_actions)  # expect: JIT502
            return int(idx[0])
        return int(jnp.argmax(q_values))


class BoltzmannPolicy(Policy):
    """Exploration with a Boltzmann distribution over the Q-values with temperature."""

    def __init__(self, T):
        """
        T : float or callable giving temperature parameter.
        """
        super(BoltzmannPolicy, self).__init__()
        self.T = T
        self.t = 0  # step counter

    def call(self, key, q_values, exploration=True, return_distribution=False):
        """
        key : jax.random.PRNGKey.
        state : jnp.array (1, n_states) - current state.
        q_values : (n_actions) - estimated q-values for the current state.
        exploration : bool = True - wether to allow exploration or to be greedy.
        return distribution : bool = False - wether to return the distribution over
        actions.
        """
        n_actions = q_values.shape[0]
        T = self.T(self.t) if callable(self.T) else self.T
        if return_distribution:
            prefs = jnp.exp(q_values / T)
            prefs /= prefs.sum()
            return prefs
        else:
            self.t += 1
            if exploration:
                prefs = jnp.exp(q_values / T)
                prefs /= prefs.sum()
                return int(jax.random.choice(key, n_actions, p=prefs))
            else:
                return int(jnp.argmax(q_values))


if __name__ == "__main__":
    import traceback

    jax.config.update("jax_debug_key_reuse", True)
    policy = EpsilonGreedy(epsilon=1.0)  # always explore, so the second draw is reached
    q_values = jnp.array([0.1, 0.5, 0.2])
    try:
        policy(jax.random.key(0), q_values)
        raise SystemExit("expected KeyReuseError")
    except Exception as e:  # jax.errors.KeyReuseError
        assert type(e).__name__ == "KeyReuseError", e
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        print("KeyReuseError at line", frames[-1].lineno)
        assert frames[-1].lineno == 58
    # Boltzmann policy draws once per key: no reuse
    print(BoltzmannPolicy(1.0)(jax.random.key(1), q_values))
