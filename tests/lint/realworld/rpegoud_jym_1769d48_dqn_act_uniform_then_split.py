# source: https://github.com/RPegoud/jym/blob/1769d4887de5bc032011fe5d0114aa339c5771e1/jym/agents/dqn.py
#   (an individual's RL-in-JAX library; the DQN agent of the author's DQN article)
# observed on jax 0.10.2 CPU: the jitted epsilon-greedy act draws the exploration coin with
#   random.uniform(key) and then splits the same key for the random action, so one key is
#   consumed twice; JAX's key-reuse checker (typed key, jax_debug_key_reuse) raises
#   KeyReuseError at that split. act then returns the subkey it handed to random.choice,
#   which the author's rollout (jym/utils/rollouts/deep_rl_rollout.py, not part of this
#   file) feeds back into the next act call.
# gap: other
# observed: line 75 splits the key that random.uniform consumed one line earlier: run under jax_debug_key_reuse with a typed key, act raises KeyReuseError whose traced source line is line 75
# Kept: the DQN class as written. Added: the BaseDeepRLAgent base class from
#   jym/agents/base_agents/base_drl_agent.py at the same commit (in place of the relative
#   import), a small haiku Q-network, and the __main__ block.
from abc import ABC, abstractmethod
from functools import partial

import haiku as hk
import jax.numpy as jnp
import optax
from jax import jit, lax, random, value_and_grad, vmap

# from .base_agents import BaseDeepRLAgent  (inlined below)


class BaseDeepRLAgent(ABC):
    def __init__(
        self,
        discount,
    ) -> None:
        self.discount = discount

    @abstractmethod
    def update(self):
        pass

    @abstractmethod
    def act(self):
        pass



class DQN(BaseDeepRLAgent):
    def __init__(
        self,
        model: hk.Transformed,
        discount: float,
        n_actions: int,
    ) -> None:
        super(DQN, self).__init__(
            discount,
        )
        self.model = model
        self.n_actions = n_actions

    @partial(jit, static_argnums=(0))
    def act(
        self,
        key: random.PRNGKey,
        online_net_params: dict,
        state: jnp.ndarray,
        epsilon: float,
    ):
        """
        Epsilon-Greedy policy with respect to the estimated Q-values.
        """

        def _random_action(subkey):
            return random.choice(subkey, jnp.arange(self.n_actions))

        def _forward_pass(_):
            q_values = self.model.apply(online_net_params, None, state)
            return jnp.argmax(q_values)

        explore = random.uniform(key) < epsilon
        key, subkey = random.split(key)  # expect: JIT502
        action = lax.cond(
            explore,
            _random_action,
            _forward_pass,
            operand=subkey,
        )
        return action, subkey

    @partial(jit, static_argnames=("self", "optimizer"))
    def update(
        self,
        online_net_params: dict,
        target_net_params: dict,
        optimizer: optax.GradientTransformation,
        optimizer_state: jnp.ndarray,
        experiences: dict[
            str : jnp.ndarray
        ],  # states, actions, next_states, dones, rewards
    ):
        @jit
        def _batch_loss_fn(
            online_net_params: dict,
            target_net_params: dict,
            states: jnp.ndarray,
            actions: jnp.ndarray,
            rewards: jnp.ndarray,
            next_states: jnp.ndarray,
            dones: jnp.ndarray,
        ):
            # vectorize the loss over states, actions, rewards, next_states and done flags
            @partial(vmap, in_axes=(None, None, 0, 0, 0, 0, 0))
            def _loss_fn(
                online_net_params,
                target_net_params,
                state,
                action,
                reward,
                next_state,
                done,
            ):
                target = reward + (1 - done) * self.discount * jnp.max(
                    self.model.apply(target_net_params, None, next_state),
                )
                prediction = self.model.apply(online_net_params, None, state)[action]
                return jnp.square(target - prediction)

            return jnp.mean(
                _loss_fn(
                    online_net_params,
                    target_net_params,
                    states,
                    actions,
                    rewards,
                    next_states,
                    dones,
                ),
                axis=0,
            )

        loss, grads = value_and_grad(_batch_loss_fn)(
            online_net_params, target_net_params, **experiences
        )
        updates, optimizer_state = optimizer.update(grads, optimizer_state)
        online_net_params = optax.apply_updates(online_net_params, updates)

        return online_net_params, optimizer_state, loss

    @partial(jit, static_argnums=(0))
    def batch_act(
        self,
        key: random.PRNGKey,
        online_net_params: dict,
        state: jnp.ndarray,
        epsilon: float,
    ):
        return vmap(
            DQN.act,
            in_axes=(None, 0, 0, 0, 0),
        )(self, key, online_net_params, state, epsilon)

    @partial(jit, static_argnames=("self", "optimizer"))
    def batch_update(
        self,
        online_net_params: dict,
        target_net_params: dict,
        optimizer: optax.GradientTransformation,
        optimizer_state: jnp.ndarray,
        experiences: dict[
            str : jnp.ndarray
        ],  # states, actions, next_states, dones, rewards
    ):
        return vmap(
            DQN.update,
            in_axes=(0, 0, None, 0, 0),
        )(
            self,
            online_net_params,
            target_net_params,
            optimizer,
            optimizer_state,
            experiences,
        )


if __name__ == "__main__":
    import traceback

    import jax

    def q_net(x):
        return hk.nets.MLP([16, 2])(x)

    model = hk.transform(q_net)
    agent = DQN(model, discount=0.99, n_actions=2)
    online = model.init(random.PRNGKey(1), jnp.zeros(4))
    target = model.init(random.PRNGKey(2), jnp.zeros(4))
    optimizer = optax.adam(1e-3)
    opt_state = optimizer.init(online)

    # the agent works as written (the rollout's use, with raw uint32 keys)
    key = random.PRNGKey(0)
    state = jnp.ones(4)
    actions = []
    for _ in range(20):
        key, sub = random.split(key)
        action, _ = agent.act(sub, online, state, 0.5)
        actions.append(int(action))
    batch = dict(
        states=jnp.ones((8, 4)), actions=jnp.zeros(8, jnp.int32), rewards=jnp.ones(8),
        next_states=jnp.ones((8, 4)), dones=jnp.zeros(8),
    )
    online, opt_state, loss = agent.update(online, target, optimizer, opt_state, batch)
    print("actions", actions, "loss", float(loss))

    # JAX's key-reuse checker: one typed key into act
    jax.config.update("jax_debug_key_reuse", True)
    try:
        agent.act(jax.random.key(0), online, state, 0.5)
        raise AssertionError("no KeyReuseError")
    except jax.errors.KeyReuseError as e:
        text = "".join(traceback.format_exception(e))
        print(str(e).splitlines()[0])
        assert f'"{__file__}", line 75' in text, text
        print("line 75: KeyReuseError: the key random.uniform consumed is split again")
    finally:
        jax.config.update("jax_debug_key_reuse", False)
