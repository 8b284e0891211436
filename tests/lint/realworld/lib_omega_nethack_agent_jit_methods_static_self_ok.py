# source: https://github.com/hr0nix/omega/blob/943971e3b96eeef4cb87ea4b53870ee67d13f552/omega/agents/nethack_agent.py
#   (NethackTransformerAgent after commit 943971e "Fix JIT recompilation issue.": the
#   forward and training steps are methods jitted once with
#   `@partial(jax.jit, static_argnums=(0,))`, and act/train_on_batch call them)
# observed on jax 0.10.2 CPU: one compilation of _forward_step for three acts and one of
#   _train_step for two training steps; self (the agent, hashed by identity) is static and
#   self._config, read in the loss, is never changed after __init__.
#   Kept verbatim: TrainState, __init__ (less the base class), _next_random_key,
#   _forward_step, _train_step, act and train_on_batch. Stand-ins (nle, rlax and the
#   project's neural modules are not installed): NethackPerceiverModel is one dense layer
#   over the flattened glyphs with a dropout mask drawn from `rng`; rlax.td_learning and
#   rlax.policy_gradient_loss are reduced to their formulas; _build_model writes a
#   (1, 21, 79) glyph batch directly; _build_model_batch returns a fixed batch instead of
#   sampling trajectories. Added: the __main__ block.
# gap: stale-state-attributes
from functools import partial
from typing import Optional

import flax.training.train_state
import flax.linen as nn
import jax.numpy as jnp
import jax.random
import optax


class rlax:
    # stand-ins for the two rlax functions used (formulas of rlax's td_learning and
    # policy_gradient_loss without the chex checks)
    @staticmethod
    def td_learning(v_tm1, r_t, discount_t, v_t):
        target_tm1 = r_t + discount_t * jax.lax.stop_gradient(v_t)
        return target_tm1 - v_tm1

    @staticmethod
    def policy_gradient_loss(logits_t, a_t, adv_t, w_t):
        log_pi_a_t = jnp.take_along_axis(logits_t, a_t[:, None], axis=-1)[:, 0]
        adv_t = jax.lax.stop_gradient(adv_t)
        return -jnp.mean(log_pi_a_t * adv_t * w_t)


class NethackPerceiverModel(nn.Module):
    # stand-in for the perceiver model: same call signature and outputs
    num_actions: int
    deterministic: Optional[bool] = None

    @nn.compact
    def __call__(self, observations_batch, deterministic=None, rng=None):
        deterministic = nn.module.merge_param('deterministic', self.deterministic, deterministic)
        glyphs = observations_batch['glyphs']
        x = jnp.reshape(glyphs, (glyphs.shape[0], -1)).astype(jnp.float32) / 6000.0
        if not deterministic:
            keep = jax.random.bernoulli(rng, 0.9, x.shape)
            x = jnp.where(keep, x / 0.9, 0.0)
        action_logits = nn.Dense(self.num_actions)(x)
        action_logprobs = jax.nn.log_softmax(action_logits, axis=-1)
        state_value = jnp.squeeze(nn.Dense(1)(x), axis=-1)
        return action_logprobs, state_value


class NethackTransformerAgent:
    CONFIG = flax.core.frozen_dict.FrozenDict({
        'model_batch_size': 32,
        'value_function_loss_weight': 1.0,
        'lr': 1e-3,
    })

    class TrainState(flax.training.train_state.TrainState):
        step_index: int = None

    def __init__(self, num_actions, config=None):
        self.num_actions = num_actions  # stand-in for the base class's action_space.n

        self._random_key = jax.random.PRNGKey(0)
        self._config = self.CONFIG.copy(config or {})
        self._model, self._train_state = self._build_model()

    def _build_model_batch(self, trajectory_batch):
        # stand-in: a fixed batch of the shapes the sampler builds
        model_batch_size = self._config['model_batch_size']
        observations = {'glyphs': jnp.zeros((model_batch_size, 21, 79), dtype=jnp.int32)}
        targets = {
            'actions': jnp.zeros((model_batch_size,), dtype=jnp.int32),
            'rewards': jnp.ones((model_batch_size,), dtype=jnp.float32),
            'dest_state_values': jnp.zeros((model_batch_size,), dtype=jnp.float32),
        }
        return observations, targets

    def _next_random_key(self):
        self._random_key, subkey = jax.random.split(self._random_key)
        return subkey

    def _build_model(self):
        observations_batch = {'glyphs': jnp.zeros(shape=(1, 21, 79), dtype=jnp.int32)}
        return self._build_model_for_batch(observations_batch)

    def _build_model_for_batch(self, observations_batch):
        model = NethackPerceiverModel(num_actions=self.num_actions)
        model_params = model.init(
            self._next_random_key(), observations_batch, deterministic=False, rng=self._next_random_key())

        optimizer = optax.adam(learning_rate=self._config['lr'])

        train_state = self.TrainState.create(apply_fn=model.apply, params=model_params, tx=optimizer)

        return model, train_state

    @partial(jax.jit, static_argnums=(0,))
    def _forward_step(self, train_state, observation_batch, rng):
        rng1, rng2 = jax.random.split(rng)
        log_action_probs, state_values = train_state.apply_fn(
            train_state.params, observation_batch, deterministic=True, rng=rng1)
        metadata = {
            'log_action_probs': log_action_probs,
            'state_values': state_values,
        }
        # TODO: we need some form of exploration or policy entropy regularization
        selected_actions = jax.random.categorical(rng2, log_action_probs)
        return selected_actions, metadata

    @partial(jax.jit, static_argnums=(0,))
    def _train_step(self, train_state, observations_batch, targets_batch, rng):
        def loss_function(params, rng):
            # TODO(hr0nix): it should come from trajectory in targets_batch, but how would you do backprop?
            log_action_probs, state_values = train_state.apply_fn(
                params, observations_batch, deterministic=False, rng=rng)
            ones = jnp.ones(shape=state_values.shape)
            batch_td_learning = jax.vmap(rlax.td_learning, in_axes=0)
            td_error = batch_td_learning(
                state_values, targets_batch['rewards'], ones, targets_batch['dest_state_values'])
            policy_gradient_loss = rlax.policy_gradient_loss(
                log_action_probs, targets_batch['actions'], td_error, ones)
            value_function_loss = self._config['value_function_loss_weight'] * jnp.mean(td_error ** 2)
            return policy_gradient_loss + value_function_loss

        loss_function_grad = jax.grad(loss_function)
        grads = loss_function_grad(train_state.params, rng=rng)
        return train_state.apply_gradients(grads=grads)

    def act(self, observation_batch):
        return self._forward_step(self._train_state, observation_batch, self._next_random_key())

    def train_on_batch(self, trajectory_batch):
        # TODO: replace pair sampling by recurrence
        observations_batch, targets_batch = self._build_model_batch(trajectory_batch)
        self._train_state = self._train_step(
            self._train_state, observations_batch, targets_batch, self._next_random_key())


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    agent = NethackTransformerAgent(num_actions=8)
    observation_batch = {'glyphs': jnp.zeros((4, 21, 79), dtype=jnp.int32)}
    for step in range(3):
        actions, metadata = agent.act(observation_batch)
    for train_step in range(2):
        agent.train_on_batch(trajectory_batch=None)
    assert actions.shape == (4,)
    assert compiles.count("jit(_forward_step)") == 1, compiles
    assert compiles.count("jit(_train_step)") == 1, compiles
    assert agent._train_state.step == 2
