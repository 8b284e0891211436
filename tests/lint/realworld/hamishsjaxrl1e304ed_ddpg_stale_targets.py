# source: https://github.com/hamishs/JAX-RL/blob/1e304ed19cc9d61402ddbeb99a3e707fe4b87161/src/jax_rl/algorithms/ddpg.py
# observed on jax 0.10.2 CPU: actor_loss/critic_loss are jitted with self static, so the target networks and the params read from self are baked in at the first trace; later soft_update_targets/train updates never reach the compiled losses
# gap: stale-state-attributes
# (haiku is not installed: hk.PRNGSequence / hk.data_structures and the haiku models are small stand-ins; TrajectoryBuffer is a stand-in returning a fixed batch (the repo's has no sample()); BaseAgent inlined from base_agent.py;
#  fixed the typo self.ciritc_params -> self.critic_params; jax.tree_util.tree_multimap -> jax.tree_util.tree_map; dropped train_on_env and the gym __main__)
# observed: line 160 after three train() steps the jitted actor_loss returns -0.2224 while the same code run eagerly with the current self.actor_params/self.critic_params returns -0.2046 (first-trace params baked in)
# observed: line 165 after changing only self.actor_target_params the jitted critic_loss is unchanged (2.3247) while the eager value is 2.9450
# observed: line 167 after then changing only self.critic_target_params the jitted critic_loss is still 2.3247 while the eager value moves to 2.1369
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax



# --- stand-ins for haiku (not installed) and for the repo's buffer ---
class hk:
    class PRNGSequence:
        def __init__(self, seed):
            self._key = jax.random.PRNGKey(seed)

        def __next__(self):
            self._key, sub = jax.random.split(self._key)
            return sub

    class data_structures:
        @staticmethod
        def to_immutable_dict(d):
            return dict(d)


class TrajectoryBuffer:
    def __init__(self, buffer_size):
        k = jax.random.split(jax.random.PRNGKey(42), 3)
        self.s = jax.random.normal(k[0], (8, 3))
        self.a = jax.random.uniform(k[1], (8, 1), minval=-1.0, maxval=1.0)
        self.s_next = jax.random.normal(k[2], (8, 3))

    def __len__(self):
        return 100

    def sample(self, n):
        return self.s, self.a, jnp.ones((8, 1)), jnp.zeros((8, 1)), self.s_next


# --- from src/jax_rl/algorithms/base_agent.py ---
from abc import ABC, abstractmethod


class BaseAgent(ABC):
    def __init__(self, key, n_states, n_actions, gamma):
        self.prng = hk.PRNGSequence(key)
        self.n_states = n_states
        self.n_actions = n_actions
        self.gamma = gamma

    @abstractmethod
    def train(self):
        pass

    @abstractmethod
    def act(self, s):
        pass


# --- src/jax_rl/algorithms/ddpg.py ---


class DDPG(BaseAgent):
    """Deep Deterministic Policy Gradient for discrete action spaces."""

    def __init__(
        self,
        key,
        n_states,
        n_actions,
        gamma,
        a_bounds,
        noise,
        buffer_size,
        actor,
        critic,
        lr_actor,
        lr_critic,
        tau,
    ):
        super(DDPG, self).__init__(key, n_states, n_actions, gamma)

        self.a_low, self.a_high = a_bounds
        self.noise = noise

        self.buffer = TrajectoryBuffer(buffer_size)

        # initiate networks and optimisers
        self.actor_params = actor.init(next(self.prng), jnp.ones([1, n_states]))
        self.actor = actor.apply
        self.actor_update, self.actor_opt_state = self.init_optimiser(
            -lr_actor, self.actor_params
        )
        self.actor_target_params = hk.data_structures.to_immutable_dict(
            self.actor_params
        )

        self.critic_params = critic.init(
            next(self.prng), jnp.ones([1, n_states]), jnp.ones([1, n_actions])
        )
        self.critic = critic.apply
        self.critic_update, self.critic_opt_state = self.init_optimiser(
            lr_critic, self.critic_params
        )
        self.critic_target_params = hk.data_structures.to_immutable_dict(
            self.critic_params
        )

        self.tau = tau

    def act(self, s, exploration=True):
        # s : (1, n_states)
        a = self.policy(self.policy_params, s).squeeze()
        if exploration:
            n_ = self.noise(next(self.prng))
            a = jnp.clip(a + n_, self.a_low, self.a_high)
        return a

    def train(self, batch_size):
        """Train the algorithm on the current buffer."""

        if len(self.buffer) > batch_size:
            s, a, r, d, s_next = self.buffer.sample(batch_size)

            # loss and gradients
            actor_loss, actor_grads = jax.value_and_grad(self.actor_loss)(
                self.actor_params, self.critic_params, s
            )
            critic_loss, critic_grads = jax.value_and_grad(self.critic_loss)(
                self.critic_params, s, a, r, d, s_next
            )

            # apply gradients
            a_updates, self.actor_opt_state = self.actor_update(
                actor_grads, self.actor_opt_state, self.actor_params
            )
            self.actor_params = optax.apply_updates(self.actor_params, a_updates)

            c_updates, self.critic_opt_state = self.critic_update(
                critic_grads, self.critic_opt_state, self.critic_params
            )
            self.critic_params = optax.apply_updates(self.critic_params, c_updates)

            # update targets
            self.soft_update_targets(self.tau)

            return actor_loss, critic_loss

    @partial(jax.jit, static_argnums=0)
    def actor_loss(self, actor_params, critic_params, s):
        return jnp.mean(
            self.critic(self.critic_params, s, self.actor(self.actor_params, s))  # expect: JIT201
        )

    @partial(jax.jit, static_argnums=0)
    def critic_loss(self, critic_params, s, a, r, d, s_next):
        a_targ = self.actor(self.actor_target_params, s_next)  # expect: JIT201
        y = r + self.gamma * (1 - d) * self.critic(
            self.critic_target_params, s_next, a_targ  # expect: JIT201
        )
        return jnp.square(self.critic(critic_params, s, a) - y).mean()

    def update_buffer(self, s, a, r, d, s_next, pi):
        self.buffer.update(s, a, r, d, s_next, pi)

    def soft_update_targets(self, tau):
        """Update targets with 1 - tau percent of current parameters."""
        _update = lambda x, y: tau * x + (1.0 - tau) * y
        self.actor_target_params = jax.tree_util.tree_map(
            _update, self.actor_target_params, self.actor_params
        )
        self.critic_target_params = jax.tree_util.tree_map(
            _update, self.critic_target_params, self.critic_params
        )

    def init_optimiser(self, lr, params):
        opt_init, opt_update = optax.adam(lr)
        opt_state = opt_init(params)
        return opt_update, opt_state


if __name__ == "__main__":

    class Model:  # stand-in for hk.without_apply_rng(hk.transform(...))
        def __init__(self, fn, n_in, n_out):
            self.fn, self.n_in, self.n_out = fn, n_in, n_out

        def init(self, key, *xs):
            return {"w": jax.random.normal(key, (self.n_in, self.n_out)) * 0.5}

        def apply(self, params, *xs):
            return self.fn(params, *xs)

    actor = Model(lambda p, s: jnp.tanh(s @ p["w"]), 3, 1)
    critic = Model(lambda p, s, a: jnp.concatenate((s, a), axis=1) @ p["w"], 4, 1)
    ddpg = DDPG(5, 3, 1, 0.98, (-1.0, 1.0), None, 5000, actor, critic, 1e-2, 1e-2, 0.5)
    s, a, r, d, s_next = ddpg.buffer.sample(8)

    eager_actor_loss = DDPG.actor_loss.__wrapped__
    eager_critic_loss = DDPG.critic_loss.__wrapped__
    ddpg.actor_loss(ddpg.actor_params, ddpg.critic_params, s)  # first trace
    ddpg.critic_loss(ddpg.critic_params, s, a, r, d, s_next)  # first trace

    for _ in range(3):
        ddpg.train(8)  # updates actor/critic params and the soft targets

    # actor_loss: reads self.critic_params / self.actor_params baked in at first trace
    jit_val = ddpg.actor_loss(ddpg.actor_params, ddpg.critic_params, s)
    fresh = eager_actor_loss(ddpg, ddpg.actor_params, ddpg.critic_params, s)
    print("actor_loss jit", jit_val, "fresh", fresh)
    assert not jnp.allclose(jit_val, fresh)

    # critic_loss: change only the actor target
    base_jit = ddpg.critic_loss(ddpg.critic_params, s, a, r, d, s_next)
    ddpg.actor_target_params = {"w": ddpg.actor_target_params["w"] + 1.0}
    jit_val = ddpg.critic_loss(ddpg.critic_params, s, a, r, d, s_next)
    fresh = eager_critic_loss(ddpg, ddpg.critic_params, s, a, r, d, s_next)
    print("critic_loss after actor-target change: jit", jit_val, "fresh", fresh)
    assert jnp.allclose(jit_val, base_jit) and not jnp.allclose(jit_val, fresh)

    # critic_loss: change only the critic target
    ddpg.critic_target_params = {"w": ddpg.critic_target_params["w"] + 1.0}
    jit_val2 = ddpg.critic_loss(ddpg.critic_params, s, a, r, d, s_next)
    fresh2 = eager_critic_loss(ddpg, ddpg.critic_params, s, a, r, d, s_next)
    print("critic_loss after critic-target change: jit", jit_val2, "fresh", fresh2)
    assert jnp.allclose(jit_val2, base_jit) and not jnp.allclose(fresh2, fresh)
