# source: https://github.com/chanb/jax_learning/blob/392d07cfb5d0ac2bb2f0d4ffe47fa5c206c3c727/jax_learning/learners/soft_actor_critic.py
# observed on jax 0.10.2 CPU: update_q/update_policy are eqx.filter_jit'ed closures that read self._sample_key at trace time; learn() writes the returned key back into self._sample_key, but the compiled programs keep the first key, so every gradient step draws the same action samples, and the "new" key they return is keys[0], a key already consumed in the batch.
# gap: stale-state-attributes
# observed: line 216 update_q reads self._sample_key frozen at trace time: after learn() writes a new key (or the user sets PRNGKey(12345)) the compiled step still splits the first key
# observed: line 217 the returned sample_key split(k, 1)[0] equals keys[0] = split(k, batch)[0], a key already consumed for batch element 0 (and the read is the same stale attribute)
# observed: line 277 update_policy likewise keeps the key from its first trace: learner._sample_key is identical after every learn() step
# observed: line 278 same reuse of keys[0] as the returned key in update_policy (stale read as well)
# Trimmed to the SAC learner's __init__ (q_loss/update_q/policy_loss/update_policy kept as written; the temperature
# update is dropped) and the inner loop of learn() without the learn_info logging. Added: imports, stand-ins for the
# repository's base learner, MLPGaussianPolicy, twin-Q ActionValue, Temperature, loss helpers, buffer and to_jnp/batch_flatten,
# and the __main__ block. Renamed old APIs: jax.tree_map -> jax.tree.map.
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jrandom
import numpy as np
import optax

from argparse import Namespace
from typing import Sequence, Tuple, Dict

Q_LOSS = "q_loss"
POLICY_LOSS = "policy_loss"
POLICY = "policy"
Q = "q"
TEMPERATURE = "temperature"
TARGET_ENTROPY = "target_entropy"
OMEGA = "omega"


# ---- stand-ins for jax_learning helpers ----
def to_jnp(*args):
    return [jax.device_put(arg) for arg in args]


def batch_flatten(*args):
    return [arg.reshape((len(arg), -1)) for arg in args]


def polyak_average_generator(x):
    def polyak_average(p, q):
        return x * p + (1 - x) * q

    return polyak_average


def sac_policy_loss(curr_q_pred_min, lprob, temp):
    return -(curr_q_pred_min - temp * lprob)


def clipped_min_q_td_error(curr_q_pred, next_q_pred_min, next_lprob, rew, terminated, temp, gamma):
    v_next = next_q_pred_min - temp * next_lprob
    curr_q_target = rew + gamma * (1 - terminated) * v_next
    return curr_q_pred - curr_q_target


class StochasticPolicy(eqx.Module):
    layer: eqx.nn.Linear

    def __init__(self, obs_dim, act_dim, key):
        self.layer = eqx.nn.Linear(obs_dim, 2 * act_dim, key=key)

    def act_lprob(self, obs, h_state, key):
        act_mean, act_raw_std = jnp.split(self.layer(obs), 2, axis=-1)
        act_std = jax.nn.softplus(act_raw_std) + 1e-7
        act = act_mean + act_std * jrandom.normal(key, act_mean.shape)
        lprob = jax.scipy.stats.norm.logpdf(act, act_mean, act_std)
        return act, lprob, h_state


class ActionValue(eqx.Module):
    qs: Tuple[eqx.nn.Linear, eqx.nn.Linear]

    def __init__(self, in_dim, key):
        k1, k2 = jrandom.split(key)
        self.qs = (eqx.nn.Linear(in_dim, 1, key=k1), eqx.nn.Linear(in_dim, 1, key=k2))

    def q_values(self, x, h_state):
        return jnp.stack([q(x) for q in self.qs]), h_state


class Temperature(eqx.Module):
    log_temp: jax.Array

    def __init__(self, init_temp=1.0):
        self.log_temp = jnp.log(init_temp)

    def __call__(self):
        return jnp.exp(self.log_temp)


class Buffer:
    def __init__(self, obs_dim, act_dim, rng):
        self.obs_dim, self.act_dim, self.rng = obs_dim, act_dim, rng

    def sample_with_next_obs(self, batch_size):
        r = self.rng
        obss = r.normal(size=(batch_size, self.obs_dim)).astype(np.float32)
        acts = r.normal(size=(batch_size, self.act_dim)).astype(np.float32)
        rews = r.normal(size=(batch_size, 1)).astype(np.float32)
        terminateds = np.zeros((batch_size, 1), np.float32)
        next_obss = r.normal(size=(batch_size, self.obs_dim)).astype(np.float32)
        h = np.zeros((batch_size, 1), np.float32)
        return obss, h, acts, rews, None, terminateds, None, next_obss, h, None, None, None


class ReinforcementLearnerWithTargetNetwork:
    def __init__(self, model, target_model, opt, buffer, cfg):
        self._step = 0
        self._model = model
        self._opt = opt
        self._opt_state = {k: o.init(model[k]) for k, o in opt.items()}
        self._buffer = buffer
        self._cfg = cfg
        self.obs_rms = False
        self._update_frequency = cfg.update_frequency
        self._gamma = cfg.gamma
        self._target_model = target_model

    buffer = property(lambda self: self._buffer)
    model = property(lambda self: self._model)
    target_model = property(lambda self: self._target_model)
    opt = property(lambda self: self._opt)
    opt_state = property(lambda self: self._opt_state)


# ---- the user's code ----
class SAC(ReinforcementLearnerWithTargetNetwork):
    def __init__(
        self,
        model: Dict[str, eqx.Module],
        target_model: Dict[str, eqx.Module],
        opt: Dict[str, optax.GradientTransformation],
        buffer,
        cfg: Namespace,
    ):
        super().__init__(model, target_model, opt, buffer, cfg)

        self._batch_size = cfg.batch_size
        self._num_gradient_steps = cfg.num_gradient_steps

        self._buffer_warmup = cfg.buffer_warmup
        self._actor_update_frequency = cfg.actor_update_frequency

        self._target_entropy = getattr(cfg, TARGET_ENTROPY, None)
        self._sample_key = jrandom.PRNGKey(cfg.seed)

        _clipped_min_q_td_error = jax.vmap(
            clipped_min_q_td_error, in_axes=[0, 0, 0, 0, 0, None, None]
        )

        @eqx.filter_grad(has_aux=True)
        def q_loss(
            models: Tuple[ActionValue, ActionValue],
            policy: StochasticPolicy,
            temperature: Temperature,
            obss: np.ndarray,
            h_states: np.ndarray,
            acts: np.ndarray,
            rews: np.ndarray,
            terminateds: np.ndarray,
            next_obss: np.ndarray,
            next_h_states: np.ndarray,
            keys: Sequence[jrandom.PRNGKey],
        ) -> Tuple[np.ndarray, dict]:
            (q, target_q) = models
            curr_xs = jnp.concatenate((obss, acts), axis=-1)
            curr_q_preds, _ = jax.vmap(q.q_values)(curr_xs, h_states)
            curr_q_preds_min = jnp.min(curr_q_preds, axis=1)

            next_acts, next_lprobs, _ = jax.vmap(policy.act_lprob)(
                next_obss, next_h_states, keys
            )
            next_lprobs = jnp.sum(next_lprobs, axis=-1, keepdims=True)

            next_xs = jnp.concatenate((next_obss, next_acts), axis=-1)
            next_q_preds, _ = jax.vmap(target_q.q_values)(next_xs, next_h_states)
            next_q_preds_min = jnp.min(next_q_preds, axis=1)

            temp = temperature()

            def batch_td_errors(curr_q_pred):
                return _clipped_min_q_td_error(
                    curr_q_pred,
                    next_q_preds_min,
                    next_lprobs,
                    rews,
                    terminateds,
                    temp,
                    self._gamma,
                )

            td_errors = jax.vmap(batch_td_errors, in_axes=[1])(curr_q_preds)
            loss = jnp.sum(jnp.mean(td_errors**2, axis=0))
            return loss, {
                Q_LOSS: loss,
            }

        apply_residual_gradient = polyak_average_generator(getattr(cfg, OMEGA, 1.0))

        def update_q(
            q: ActionValue,
            target_q: ActionValue,
            policy: StochasticPolicy,
            temperature: Temperature,
            opt: optax.GradientTransformation,
            opt_state: optax.OptState,
            obss: np.ndarray,
            h_states: np.ndarray,
            acts: np.ndarray,
            rews: np.ndarray,
            terminateds: np.ndarray,
            next_obss: np.ndarray,
            next_h_states: np.ndarray,
        ):
            sample_key = jrandom.split(self._sample_key, num=1)[0]  # expect: JIT201
            keys = jrandom.split(self._sample_key, num=self._batch_size)  # expect: JIT502,JIT201
            grads, learn_info = q_loss(
                (q, target_q),
                policy,
                temperature,
                obss,
                h_states,
                acts,
                rews,
                terminateds,
                next_obss,
                next_h_states,
                keys,
            )
            (q_grads, target_q_grads) = grads
            grads = jax.tree.map(apply_residual_gradient, q_grads, target_q_grads)

            updates, opt_state = opt.update(grads, opt_state)
            q = eqx.apply_updates(q, updates)
            return (
                q,
                opt_state,
                grads,
                learn_info,
                sample_key,
            )

        _sac_policy_loss = jax.vmap(sac_policy_loss, in_axes=[0, 0, None])

        @eqx.filter_grad(has_aux=True)
        def policy_loss(
            policy: StochasticPolicy,
            q: ActionValue,
            temperature: Temperature,
            obss: np.ndarray,
            h_states: np.ndarray,
            keys: Sequence[jrandom.PRNGKey],
        ) -> Tuple[np.ndarray, dict]:
            acts, lprobs, _ = jax.vmap(policy.act_lprob)(obss, h_states, keys)
            lprobs = jnp.sum(lprobs, axis=-1, keepdims=True)
            curr_xs = jnp.concatenate((obss, acts), axis=-1)
            curr_q_preds, _ = jax.vmap(q.q_values)(curr_xs, h_states)
            curr_q_preds_min = jnp.min(curr_q_preds, axis=1)
            temp = temperature()

            loss = jnp.mean(_sac_policy_loss(curr_q_preds_min, lprobs, temp))
            return loss, {
                POLICY_LOSS: loss,
            }

        def update_policy(
            policy: StochasticPolicy,
            q: ActionValue,
            temperature: Temperature,
            opt: optax.GradientTransformation,
            opt_state: optax.OptState,
            obss: np.ndarray,
            h_states: np.ndarray,
            acts: np.ndarray,
        ):
            sample_key = jrandom.split(self._sample_key, num=1)[0]  # expect: JIT201
            keys = jrandom.split(self._sample_key, num=self._batch_size)  # expect: JIT502,JIT201

            grads, learn_info = policy_loss(
                policy, q, temperature, obss, h_states, keys
            )

            updates, opt_state = opt.update(grads, opt_state)
            policy = eqx.apply_updates(policy, updates)
            return policy, opt_state, grads, learn_info, sample_key

        self.update_q = eqx.filter_jit(update_q)
        self.update_policy = eqx.filter_jit(update_policy)

    def learn(self):
        self._step += 1

        if (
            self._step <= self._buffer_warmup
            or (self._step - 1 - self._buffer_warmup) % self._update_frequency != 0
        ):
            return

        for update_i in range(self._num_gradient_steps):
            (
                obss,
                h_states,
                acts,
                rews,
                _,
                terminateds,
                _,
                next_obss,
                next_h_states,
                _,
                _,
                _,
            ) = self.buffer.sample_with_next_obs(
                batch_size=self._batch_size,
            )

            (
                obss,
                h_states,
                acts,
                rews,
                terminateds,
                next_obss,
                next_h_states,
            ) = to_jnp(
                *batch_flatten(
                    obss,
                    h_states,
                    acts,
                    rews,
                    terminateds,
                    next_obss,
                    next_h_states,
                )
            )
            q, opt_state, grads, q_learn_info, self._sample_key = self.update_q(
                q=self.model[Q],
                target_q=self.target_model[Q],
                policy=self.model[POLICY],
                temperature=self.model[TEMPERATURE],
                opt=self.opt[Q],
                opt_state=self.opt_state[Q],
                obss=obss,
                h_states=h_states,
                acts=acts,
                rews=rews,
                terminateds=terminateds,
                next_obss=next_obss,
                next_h_states=next_h_states,
            )

            self._model[Q] = q
            self._opt_state[Q] = opt_state

            if self._step % self._actor_update_frequency == 0:
                (
                    policy,
                    opt_state,
                    grads,
                    policy_learn_info,
                    self._sample_key,
                ) = self.update_policy(
                    policy=self.model[POLICY],
                    q=self.model[Q],
                    temperature=self.model[TEMPERATURE],
                    opt=self.opt[POLICY],
                    opt_state=self.opt_state[POLICY],
                    obss=obss,
                    h_states=h_states,
                    acts=acts,
                )
                self._model[POLICY] = policy
                self._opt_state[POLICY] = opt_state


if __name__ == "__main__":
    obs_dim, act_dim, batch = 3, 2, 8
    cfg = Namespace(seed=0, batch_size=batch, num_gradient_steps=1, buffer_warmup=0,
                    actor_update_frequency=1, update_frequency=1, gamma=0.99)
    k1, k2 = jrandom.split(jrandom.PRNGKey(1))
    model = {POLICY: StochasticPolicy(obs_dim, act_dim, k1),
             Q: ActionValue(obs_dim + act_dim, k2),
             TEMPERATURE: Temperature(0.2)}
    target_model = {Q: model[Q]}
    opt = {POLICY: optax.adam(1e-3), Q: optax.adam(1e-3)}
    learner = SAC(model, target_model, opt, Buffer(obs_dim, act_dim, np.random.default_rng(0)), cfg)

    first_key = learner._sample_key
    returned = []
    for _ in range(4):
        learner.learn()
        returned.append(np.asarray(learner._sample_key))
    # A correctly advancing key would give 4 different keys; the compiled update_q/update_policy
    # keep reading the key from trace time, so every step returns (and uses) the same keys.
    assert all(np.array_equal(returned[0], r) for r in returned), returned
    # update_q was traced with first_key, update_policy with split(first_key, 1)[0]; both stay frozen.
    frozen = jrandom.split(jrandom.split(first_key, num=1)[0], num=1)[0]
    assert np.array_equal(returned[0], frozen)
    print("line 216/277 (update_q/update_policy read self._sample_key): key after every learn() step is", returned[0])

    # Setting the attribute to a brand-new key has no effect on the compiled functions.
    learner._sample_key = jrandom.PRNGKey(12345)
    learner.learn()
    assert np.array_equal(np.asarray(learner._sample_key), returned[0])
    print("after setting self._sample_key = PRNGKey(12345), update_policy still returns", learner._sample_key)

    # The "next" key handed back is split(k, 1)[0] == split(k, batch)[0], i.e. the key that
    # already sampled batch element 0.
    k = jrandom.PRNGKey(0)
    assert np.array_equal(jrandom.split(k, num=1)[0], jrandom.split(k, num=batch)[0])
    print("line 217/278: split(k, 1)[0] == split(k, batch)[0] -> returned key equals keys[0]")
