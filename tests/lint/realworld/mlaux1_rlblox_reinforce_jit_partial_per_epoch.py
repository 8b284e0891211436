# source: https://github.com/mlaux1/rl-blox/blob/12864510b666511f5fa19da7247a9dd611f9d493/rl_blox/algorithms/model_free/reinforce.py
#   (rl-blox's REINFORCE with a flax value-function baseline, commit "Fix discrete example";
#   examples/reinforce_continuous.py at the same commit calls train_reinforce_epoch once per epoch)
# observed on jax 0.10.2 CPU: train_reinforce_epoch wraps update_value_function in a new
#   functools.partial and jits it on every call, so each epoch traces and compiles the value
#   update again although the batch has the same shape every epoch (3 epochs: one
#   backend compile of jit(update_value_function) in each, [1, 1, 1]).
#   Changed: the long docstring of reinforce_gradient is cut to its first line; the relative
#   import of rl_blox.policy.differentiable is replaced by the parts of that file (same
#   commit) the code uses: NeuralNetwork, nn_forward, GaussianNNPolicy, sample_gaussian_nn,
#   gaussian_log_probability, softmax_log_probability and their batched forms, with
#   distrax's distributions replaced by the plain-JAX lines the authors left commented out
#   next to them (log-probs summed over action dims). Added (gymnasium and distrax are not
#   installed): a `gym` stand-in with spaces.Box/Discrete/Space and Env, a pendulum-like
#   environment with fixed 50-step episodes, and the __main__ block, the example's epoch
#   loop for 3 epochs (small networks, batch_size=100). Not labelled: train_reinforce_epoch
#   never returns value_function_state, so each epoch restarts the baseline from its
#   initial parameters (a bug of the code, not of tracing).
# gap: per-call-recompile
import math
import types
from functools import partial
from typing import List, Optional, Tuple

import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
from flax.training.train_state import TrainState
import numpy as np
import optax


# --- stand-in for gymnasium (not installed) ---
class _Space:
    pass


class _Box(_Space):
    def __init__(self, low, high, shape):
        self.low = np.full(shape, low, dtype=np.float32)
        self.high = np.full(shape, high, dtype=np.float32)
        self.shape = shape


class _Discrete(_Space):
    def __init__(self, n, start=0):
        self.n = n
        self.start = start
        self.shape = ()


class _Env:
    pass


gym = types.SimpleNamespace(
    Env=_Env,
    spaces=types.SimpleNamespace(Space=_Space, Box=_Box, Discrete=_Discrete),
)


class PendulumStandIn(gym.Env):
    """Fixed-length episodes: 50 steps, then truncated."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (3,))
    action_space = gym.spaces.Box(-2.0, 2.0, (1,))

    def __init__(self):
        self.rng = np.random.default_rng(0)

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.t = 0
        self.theta = self.rng.uniform(-np.pi, np.pi)
        return self._obs(), {}

    def _obs(self):
        return np.array([np.cos(self.theta), np.sin(self.theta), 0.0],
                        dtype=np.float32)

    def step(self, action):
        self.t += 1
        self.theta += 0.05 * float(np.clip(action, -2.0, 2.0)[0])
        reward = -float(self.theta ** 2)
        return self._obs(), reward, False, self.t >= 50, {}


# --- from rl_blox/policy/differentiable.py at the same commit ---
class NeuralNetwork:
    theta: List[Tuple[jax.Array, jax.Array]]

    def __init__(
        self,
        sizes: List[int],
        key: jax.random.PRNGKey,
        initializer=jax.nn.initializers.he_uniform,
    ):
        keys = jax.random.split(key, len(sizes))
        self.theta = [
            self._random_layer_params(m, n, k)
            for m, n, k in zip(sizes[:-1], sizes[1:], keys)
        ]

    def _random_layer_params(
        self,
        m: int,
        n: int,
        key: jax.random.PRNGKey,
        initializer=jax.nn.initializers.he_uniform,
    ):
        w_key, b_key = jax.random.split(key)
        weight_initializer = initializer()
        bound = 1.0 / math.sqrt(m)
        return (
            weight_initializer(w_key, (n, m), jnp.float32),
            jax.random.uniform(b_key, (n,), jnp.float32, -bound, bound),
        )


def nn_forward(
    x: jax.Array, theta: List[Tuple[jax.Array, jax.Array]]
) -> jax.Array:
    for W, b in theta[:-1]:
        a = jnp.dot(W, x) + b
        x = jnp.tanh(a)
    W, b = theta[-1]
    y = jnp.dot(W, x) + b
    return y


batched_nn_forward = jax.vmap(nn_forward, in_axes=(0, None))


class GaussianNNPolicy(NeuralNetwork):
    observation_space: gym.spaces.Space
    action_space: gym.spaces.Space
    theta = jax.Array
    sampling_key: jax.random.PRNGKey

    def __init__(
        self,
        observation_space: gym.spaces.Space,
        action_space: gym.spaces.Space,
        hidden_nodes: List[int],
        key: jax.random.PRNGKey,
    ):
        self.observation_space = observation_space
        self.action_space = action_space

        self.sampling_key, key = jax.random.split(key)

        sizes = (
            [self.observation_space.shape[0]]
            + hidden_nodes
            + [2 * self.action_space.shape[0]]
        )
        super(GaussianNNPolicy, self).__init__(sizes, key)
        self.sample_gaussian_nn = jax.jit(
            partial(
                sample_gaussian_nn, n_action_dims=self.action_space.shape[0]
            )
        )

    def sample(self, state: jax.Array) -> jax.Array:
        self.sampling_key, key = jax.random.split(self.sampling_key)
        return self.sample_gaussian_nn(state, self.theta, key)


def sample_gaussian_nn(
    x: jax.Array,
    theta: List[Tuple[jax.Array, jax.Array]],
    key: jax.random.PRNGKey,
    n_action_dims: int,
) -> jax.Array:
    y = nn_forward(x, theta).squeeze()
    mu, log_sigma = jnp.split(y, [n_action_dims])
    log_sigma = jnp.clip(log_sigma, -20.0, 2.0)
    sigma = jnp.exp(log_sigma)
    return jax.random.normal(key, shape=mu.shape) * sigma + mu


def gaussian_log_probability(
    state: jax.Array,
    action: jax.Array,
    theta: List[Tuple[jax.Array, jax.Array]],
) -> jnp.float32:
    y = nn_forward(state, theta).squeeze()
    mu, log_sigma = jnp.split(y, [action.shape[0]])
    log_sigma = jnp.clip(log_sigma, -20.0, 2.0)
    sigma = jnp.exp(log_sigma)
    return jnp.sum(-jnp.log(sigma) - 0.5 * jnp.log(2.0 * jnp.pi) - 0.5 * jnp.square((action - mu) / sigma))


batched_gaussian_log_probability = jax.vmap(
    gaussian_log_probability, in_axes=(0, 0, None)
)


def softmax_log_probability(
    state: jax.Array,
    action: jax.Array,
    theta: List[Tuple[jax.Array, jax.Array]],
) -> jnp.float32:
    logits = nn_forward(state, theta).squeeze()
    return logits[action] - jax.scipy.special.logsumexp(logits)


batched_softmax_log_probability = jax.vmap(
    softmax_log_probability, in_axes=(0, 0, None)
)


# --- rl_blox/algorithms/model_free/reinforce.py ---
class EpisodeDataset:
    """Collects samples batched in episodes."""

    episodes: List[List[Tuple[jax.Array, jax.Array, jax.Array, float]]]

    def __init__(self):
        self.episodes = []

    def start_episode(self):
        self.episodes.append([])

    def add_sample(
        self,
        state: jax.Array,
        action: jax.Array,
        next_state: jax.Array,
        reward: float,
    ):
        assert len(self.episodes) > 0
        self.episodes[-1].append((state, action, next_state, reward))

    def _indices(self) -> List[int]:
        indices = []
        for episode in self.episodes:
            indices.extend([t for t in range(len(episode))])
        return indices

    def _states(self) -> np.ndarray:
        states = []
        for episode in self.episodes:
            states.extend([s for s, _, _, _ in episode])
        return np.vstack(states)

    def _actions(self) -> np.ndarray:
        actions = []
        for episode in self.episodes:
            actions.extend([a for _, a, _, _ in episode])
        return np.stack(actions)

    def _next_states(self) -> np.ndarray:
        next_states = []
        for episode in self.episodes:
            next_states.extend([s for _, _, s, _ in episode])
        return np.vstack(next_states)

    def _rewards(self) -> List[List[float]]:
        rewards = []
        for episode in self.episodes:
            rewards.append([r for _, _, _, r in episode])
        return rewards

    def __len__(self) -> int:
        return sum(map(len, self.episodes))

    def average_return(self) -> float:
        return sum(
            [sum([r for _, _, _, r in episode]) for episode in self.episodes]
        ) / len(self.episodes)

    def prepare_policy_gradient_dataset(
        self, action_space: gym.spaces.Space, gamma: float
    ) -> Tuple[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]:
        states = jnp.array(self._states())
        actions = jnp.array(self._actions())
        next_states = jnp.array(self._next_states())
        if isinstance(action_space, gym.spaces.Discrete):
            actions -= action_space.start
        returns = jnp.hstack(
            [discounted_reward_to_go(R, gamma) for R in self._rewards()]
        )
        gamma_discount = gamma ** jnp.hstack(self._indices())
        return states, actions, next_states, returns, gamma_discount


def discounted_reward_to_go(rewards, gamma):
    discounted_returns = []
    accumulated_return = 0.0
    for r in reversed(rewards):
        accumulated_return *= gamma
        accumulated_return += r
        discounted_returns.append(accumulated_return)
    return np.array(list(reversed(discounted_returns)))


class ValueFunctionApproximation(nn.Module):
    """Approximation of the state-value function V(s).

    Note that a value function is usually specific for a policy because the
    policy influences action selection. Hence, reusing an old estimation of
    the value function for a new policy is an approximation. In addition,
    we use a function approximator that is trained on a finite number of
    samples, which also is an approximation.

    :param observation_space: observation space
    :param hidden_nodes: number of hidden nodes per hidden layer
    """
    hidden_nodes: List[int]
    """Numbers of hidden nodes of the MLP."""

    @nn.compact
    def __call__(self, x):
        for n_nodes in self.hidden_nodes:
            x = nn.Dense(n_nodes)(x)
            x = nn.relu(x)
        x = nn.Dense(1)(x)
        return x

    @staticmethod
    def create(hidden_nodes: List[int]):
        return ValueFunctionApproximation(hidden_nodes=hidden_nodes)


def value_loss(
        v: nn.Module,
        observations: jax.Array,
        returns: jax.Array,
        v_params: flax.core.FrozenDict
) -> float:
    """Value error as loss for the value function network.

    :param v: Value function network.
    :param observations: Batch of observations.
    :param returns: Episode returns.
    :param v_params: Parameters of the Q network.
    :return: Mean squared distance between predicted and actual action values.
    """
    values = v.apply(v_params, observations).squeeze()
    return 2.0 * optax.l2_loss(predictions=values, targets=returns).mean()


def update_value_function(
        v: nn.Module,
        v_state: TrainState,
        observations: jax.Array,
        returns: jax.Array
) -> Tuple[TrainState, float]:
    """Value function update."""
    v_loss_value, grads = jax.value_and_grad(
        partial(value_loss, v, observations, returns)
    )(v_state.params)
    v_state = v_state.apply_gradients(grads=grads)
    return v_state, v_loss_value


@jax.jit
def gaussian_policy_gradient_pseudo_loss(
    states: jax.Array,
    actions: jax.Array,
    weights: jax.Array,
    theta: List[Tuple[jax.Array, jax.Array]],
) -> jnp.float32:
    logp = batched_gaussian_log_probability(states, actions, theta)
    return -jnp.mean(
        weights * logp
    )  # - to perform gradient ascent with a minimizer


@jax.jit
def softmax_policy_gradient_pseudo_loss(
    states: jax.Array,
    actions: jax.Array,
    weights: jax.Array,
    theta: List[Tuple[jax.Array, jax.Array]],
) -> jnp.float32:
    logp = batched_softmax_log_probability(states, actions, theta)
    return -jnp.mean(
        weights * logp
    )  # - to perform gradient ascent with a minimizer


class PolicyTrainer:
    """Contains the state of the policy optimizer."""

    def __init__(
        self,
        policy: NeuralNetwork,
        optimizer=optax.adam,
        learning_rate: float = 1e-2,
        n_train_iters_per_update: int = 1,
    ):
        self.policy = policy
        self.n_train_iters_per_update = n_train_iters_per_update
        self.solver = optimizer(learning_rate=learning_rate)
        self.opt_state = self.solver.init(self.policy.theta)

    def update(
        self,
        policy_gradient_func,
        value_function: Optional[ValueFunctionApproximation],
        value_function_params: Optional[flax.core.FrozenDict],
        *args,
        **kwargs,
    ):
        for _ in range(self.n_train_iters_per_update):
            theta_grad = policy_gradient_func(
                self.policy, value_function, value_function_params,
                *args, **kwargs
            )
            updates, self.opt_state = self.solver.update(
                theta_grad, self.opt_state, self.policy.theta
            )
            self.policy.theta = optax.apply_updates(self.policy.theta, updates)


def reinforce_gradient(
    policy: NeuralNetwork,
    value_function: Optional[ValueFunctionApproximation],
    value_function_params: Optional[flax.core.FrozenDict],
    states: jax.Array,
    actions: jax.Array,
    returns: jax.Array,
    gamma_discount: Optional[jax.Array] = None,
) -> jax.Array:
    """REINFORCE policy gradient update."""
    if value_function is not None:
        # state-value function as baseline, weights are advantages
        baseline = value_function.apply(value_function_params, states)
    else:
        # no baseline, weights are MC returns
        baseline = jnp.zeros_like(returns)
    weights = returns - baseline
    if gamma_discount is not None:
        weights *= gamma_discount

    if isinstance(
        policy, GaussianNNPolicy
    ):  # TODO find another way without if-else
        return jax.grad(
            partial(
                gaussian_policy_gradient_pseudo_loss, states, actions, weights
            )
        )(policy.theta)
    else:
        return jax.grad(
            partial(
                softmax_policy_gradient_pseudo_loss, states, actions, weights
            )
        )(policy.theta)


def train_reinforce_epoch(
    train_env : gym.Env,
    policy,
    policy_trainer,
    render_env: Optional[gym.Env],
    value_function: nn.Module,
    value_function_state: TrainState,
    batch_size: int,
    gamma: float,
    train_after_episode: bool = False,
    n_train_iters_per_update: int = 1
):
    dataset = EpisodeDataset()
    if render_env is not None:
        env = render_env
    else:
        env = train_env

    dataset.start_episode()
    observation, _ = env.reset()
    while True:
        action = policy.sample(jnp.array(observation))
        next_observation, reward, terminated, truncated, _ = env.step(
            np.asarray(action)
        )

        done = terminated or truncated

        dataset.add_sample(observation, action, next_observation, reward)

        observation = next_observation

        if done:
            if train_after_episode or len(dataset) >= batch_size:
                break

            env = train_env
            observation, _ = env.reset()
            dataset.start_episode()

    print(f"{dataset.average_return()=}")

    states, actions, _, returns, gamma_discount = (
        dataset.prepare_policy_gradient_dataset(env.action_space, gamma)
    )

    policy_trainer.update(
        reinforce_gradient,
        value_function,
        value_function_state.params,
        states,
        actions,
        returns,
        gamma_discount,
    )

    if value_function is not None:
        update = jax.jit(partial(update_value_function, v=value_function))  # expect: JIT301
        for i in range(n_train_iters_per_update):
            value_function_state, v_loss_value = update(
                v_state=value_function_state, observations=states,
                returns=returns)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    # examples/reinforce_continuous.py, with the stand-in environment and 3 epochs
    train_env = PendulumStandIn()
    train_env.reset(seed=43)
    render_env = None

    observation_space = train_env.observation_space
    action_space = train_env.action_space
    policy = GaussianNNPolicy(
        observation_space, action_space, [16, 32], jax.random.PRNGKey(42)
    )

    value_key = jax.random.PRNGKey(43)
    obs, _ = train_env.reset(seed=42)
    value_function = ValueFunctionApproximation(hidden_nodes=[50, 50])
    value_function_state = TrainState.create(
        apply_fn=value_function.apply,
        params=value_function.init(value_key, obs),
        tx=optax.adam(learning_rate=1e-2),
    )
    value_function.apply = jax.jit(value_function.apply)

    policy_trainer = PolicyTrainer(
        policy, optimizer=optax.adamw, learning_rate=1e-4
    )

    per_epoch = []
    for i in range(3):
        before = compiles.count("jit(update_value_function)")
        train_reinforce_epoch(
            train_env,
            policy,
            policy_trainer,
            render_env,
            value_function,
            value_function_state,
            batch_size=100,
            gamma=0.99,
            train_after_episode=False,
            n_train_iters_per_update=1
        )
        per_epoch.append(compiles.count("jit(update_value_function)") - before)
    print("compiles of update_value_function per epoch:", per_epoch)
    # observed: line 513 jits a fresh partial on every call of train_reinforce_epoch: the
    # value update is traced and compiled again in every epoch, with batches of one shape
    assert per_epoch == [1, 1, 1], per_epoch
