# source: https://github.com/xqz-u/dopamine/blob/344982b217e3b7b535583244cb164b64f6367620/thesis/jax/exploration.py (with `force_devicearray_split` from thesis/utils.py and `ClassicControlDNNetwork` from thesis/jax/networks.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; 200 epsilon-greedy steps under jit, two compiles (train and eval mode)
# gap: static-hashability
# (added: the `jnp.DeviceArray` annotations spelled `jax.Array`, since `jnp.DeviceArray` no longer exists; the `@gin.configurable` decorator of the network dropped; the `__main__` block threading the key through repeated calls with small sizes)
import functools as ft
from typing import Sequence, Tuple, Union

import flax
import jax
from flax import linen as nn
from jax import numpy as jnp
from jax import random as jrand


def force_devicearray_split(
    key: jax.random.PRNGKey, n=2
) -> Sequence[jax.random.PRNGKey]:
    splits = jax.random.split(key, n)
    return [jax.numpy.asarray(k) for k in splits]


class ClassicControlDNNetwork(nn.Module):
    output_dim: int
    hidden_features: Sequence[int] = (512, 512)
    min_vals: Union[None, Tuple[float, ...]] = None
    max_vals: Union[None, Tuple[float, ...]] = None
    kernel_initializer: callable = nn.initializers.xavier_uniform()
    activation_fn: callable = nn.relu

    def setup(self):
        if self.min_vals is not None:
            assert self.max_vals is not None
            self._min_vals = jnp.array(self.min_vals)
            self._max_vals = jnp.array(self.max_vals)
        self.layers = [
            nn.Dense(features=feat, kernel_init=self.kernel_initializer)
            for feat in self.hidden_features
        ]
        self.final_layer = nn.Dense(
            features=self.output_dim, kernel_init=self.kernel_initializer
        )

    def __call__(self, x):
        x = x.reshape((-1))  # flatten
        if self.min_vals is not None:
            x -= self._min_vals
            x /= self._max_vals - self._min_vals
            x = 2.0 * x - 1.0  # Rescale in range [-1, 1].
        for layer in self.layers:
            x = layer(x)
            x = self.activation_fn(x)
        return self.final_layer(x)


@ft.partial(jax.jit, static_argnums=(1, 2, 3, 4, 5))
def egreedy_action_selection(
    rng: jax.Array,
    q_net: nn.Module,
    num_actions: int,
    eval_mode: bool,
    epsilon_train: float,
    epsilon_eval: float,
    params: flax.core.frozen_dict.FrozenDict,
    state: jax.Array,
) -> Tuple[jax.Array, jax.Array]:
    epsilon = epsilon_train if not eval_mode else epsilon_eval
    key, key1, key2 = force_devicearray_split(rng, 3)
    return key, jnp.where(
        jrand.uniform(key1) <= epsilon,
        jrand.randint(key2, (), 0, num_actions),
        jnp.argmax(q_net.apply(params, state)),
    )


if __name__ == "__main__":
    q_net = ClassicControlDNNetwork(
        output_dim=2,
        hidden_features=(16, 16),
        min_vals=(-2.4, -5.0, -0.21, -5.0),
        max_vals=(2.4, 5.0, 0.21, 5.0),
    )
    rng = jrand.PRNGKey(0)
    rng, init_key = jrand.split(rng)
    state = jnp.zeros((4, 1))
    params = q_net.init(init_key, state)
    actions = []
    for step in range(200):
        rng, action = egreedy_action_selection(
            rng, q_net, 2, False, 0.5, 0.001, params, state
        )
        actions.append(int(action))
    greedy = int(jnp.argmax(q_net.apply(params, state)))
    print("explore actions:", sum(a != greedy for a in actions), "of", len(actions))
    assert 0 < sum(a != greedy for a in actions) < len(actions)
    rng, action = egreedy_action_selection(rng, q_net, 2, True, 0.5, 0.001, params, state)
    assert egreedy_action_selection._cache_size() == 2
