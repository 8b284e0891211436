# source: https://github.com/talmolab/track-mjx/issues/45
#   ("`policy_param_fn`'s rendering code `jit` compiles the environment every eval": "it has
#   the jit function within the `policy_params_fn`, which triggers the recompilation of the
#   function every single time when we called this"; fixed in #54, "compile inference fn
#   once"). The code is track_mjx/agent/logging.py (setup_training_logging), train.py
#   (policy_params_fn) and agent/custom_ppo_networks.py (make_inference_fn) at bdcb2f4^.
# observed on jax 0.10.2 CPU: every evaluation jits a fresh bound `reset` and `step` of a
#   new RenderRolloutWrapperTracking and a fresh policy closure from make_policy, so each of
#   the three evaluations compiles all three functions again (9 compilations instead of 3).
#   In the rollout loop, `jax.random.split(act_rng)` splits the key that jit_inference_fn
#   has just consumed (the policy splits it into key_sample and key_network), so each new
#   act_rng is the key_network of the step before: with a typed key and
#   jax.debug_key_reuse(True) the split raises KeyReuseError.
#   Kept as track-mjx wrote them: the rollout part of setup_training_logging (the wandb
#   plots and mujoco rendering after the rollout are left out), policy_params_fn,
#   make_inference_fn and RenderRolloutWrapperTracking. Added stand-ins (brax, mujoco,
#   hydra and wandb are not installed): brax's Wrapper and State, a two-joint tracking
#   environment, the intention network's apply (an encoder sampling its latent with
#   `reparameterize` as track-mjx does, and a tanh decoder), a tanh-normal action
#   distribution, the config as SimpleNamespaces, and a loop standing in for train_fn's
#   evaluations.
# gap: per-call-recompile
from types import SimpleNamespace
from typing import Any, Callable, Tuple

import flax
import jax
import jax.numpy as jnp
from jax import numpy as jp
from jax import random


@flax.struct.dataclass
class State:
    # stand-in for brax.envs.base.State
    pipeline_state: Any
    obs: jax.Array
    reward: jax.Array
    done: jax.Array
    metrics: dict = flax.struct.field(default_factory=dict)
    info: dict = flax.struct.field(default_factory=dict)


class Wrapper:
    # stand-in for brax.envs.base.Wrapper
    def __init__(self, env):
        self.env = env

    def step(self, state, action):
        return self.env.step(state, action)

    def __getattr__(self, name):
        if name == "__setstate__":
            raise AttributeError(name)
        return getattr(self.env, name)


class TrackingEnvStandIn:
    # stand-in for track-mjx's tracking environment: two joints following a reference
    _n_clips = 2
    _steps_for_cur_frame = 2
    sys = SimpleNamespace(nu=2)

    def reset_from_clip(self, rng, info):
        qpos = 0.1 * jax.random.normal(rng, (2,))
        obs = jnp.concatenate([jnp.ones(2), qpos])
        return State(pipeline_state=qpos, obs=obs, reward=jnp.zeros(()), done=jnp.zeros(()),
                     metrics={"pos_reward": jnp.zeros(())}, info=info)

    def step(self, state, action):
        qpos = state.pipeline_state + 0.1 * action
        obs = jnp.concatenate([jnp.ones(2), qpos])
        reward = -jnp.sum((qpos - 1.0) ** 2)
        return state.replace(pipeline_state=qpos, obs=obs, reward=reward,
                             metrics={"pos_reward": reward})


class RenderRolloutWrapperTracking(Wrapper):
    """Always resets to the first frame of the clips for complete rollouts."""

    def reset(self, rng: jax.Array, clip_idx: int | None = None) -> State:
        """
        Resets the environment to an initial state.

        Args:
            rng (jax.Array): Random key for reproducibility.
            clip_idx (int | None, optional): clip index to reset to. if None, randomly choose the clip . Defaults to None.

        Returns:
            State: The initial state of the environment.
        """
        _, clip_rng, rng = jax.random.split(rng, 3)
        if clip_idx is None:
            clip_idx = jax.random.randint(clip_rng, (), 0, self._n_clips)  # type: ignore
        info = {
            "clip_idx": clip_idx,
            "start_frame": 0,
            "summed_pos_distance": 0.0,
            "quat_distance": 0.0,
            "joint_distance": 0.0,
            "prev_ctrl": jp.zeros((self.sys.nu,)),
        }

        return self.reset_from_clip(rng, info)


def reparameterize(rng, mean, logvar):
    std = jnp.exp(0.5 * logvar)
    eps = random.normal(rng, logvar.shape)
    return mean + eps * std


class IntentionNetworkStandIn:
    # stand-in for make_intention_policy's apply: encoder, sampled latent, decoder
    def apply(self, processor_params, policy_params, obs, key, get_activation=False):
        _, encoder_rng = jax.random.split(key)
        latent_mean = policy_params["enc"] @ obs[..., :2]
        latent_logvar = jnp.full_like(latent_mean, -2.0)
        z = reparameterize(encoder_rng, latent_mean, latent_logvar)
        action = policy_params["dec"] @ jnp.concatenate([z, obs[..., 2:]], axis=-1)
        return action, latent_mean, latent_logvar


class TanhNormalStandIn:
    # stand-in for brax's NormalTanhDistribution
    def mode(self, logits):
        return jnp.tanh(logits)

    def sample_no_postprocessing(self, logits, key):
        return logits + jax.random.normal(key, logits.shape)

    def log_prob(self, logits, raw_actions):
        return -0.5 * jnp.sum((raw_actions - logits) ** 2, axis=-1)

    def postprocess(self, raw_actions):
        return jnp.tanh(raw_actions)


@flax.struct.dataclass
class PPOImitationNetworks:
    policy_network: Any
    value_network: Any
    parametric_action_distribution: Any


def make_inference_fn(ppo_networks: PPOImitationNetworks):
    """Creates params and inference function for the PPO agent."""

    def make_policy(
        params, deterministic: bool = False, get_activation: bool = False
    ):
        policy_network = ppo_networks.policy_network
        # can modify this to provide stochastic action + noise
        parametric_action_distribution = ppo_networks.parametric_action_distribution

        def policy(
            observations,
            key_sample,
        ):
            key_sample, key_network = jax.random.split(key_sample)
            activations = None
            if get_activation:
                logits, _, _, activations = policy_network.apply(*params, observations, key_network, get_activation=True)
                # logits comes from policy directly, raw predictions that decoder generates (action, intention_mean, intention_logvar)
            else:
                logits, _, _ = policy_network.apply(*params, observations, key_network)
            if deterministic:
                if get_activation:
                    return ppo_networks.parametric_action_distribution.mode(logits), {"activations": activations}
                return ppo_networks.parametric_action_distribution.mode(logits), {}


            # action sampling is happening here, according to distribution parameter logits
            raw_actions = parametric_action_distribution.sample_no_postprocessing(
                logits, key_sample
            )

            # probability of selection specific action, actions with higher reward should have higher probability
            log_prob = parametric_action_distribution.log_prob(logits, raw_actions)

            postprocessed_actions = parametric_action_distribution.postprocess(
                raw_actions
            )

            return postprocessed_actions, {
                # "latent_mean": latent_mean,
                # "latent_logvar": latent_logvar,
                "log_prob": log_prob,
                "raw_action": raw_actions,
                "logits": logits,
                "activations": activations,
            }

        return policy

    return make_policy


def setup_training_logging(
    num_steps: int,
    make_policy: Callable,
    params,
    rollout_key: jax.random.PRNGKey,
    cfg,
    env,
    model_path: str,
) -> None:
    """Logs metrics and videos for a reinforcement learning training rollout."""

    ref_trak_config = cfg["reference_config"]
    env_config = cfg["env_config"]
    walker_config = cfg["walker_config"]

    # Wrap the env in the brax autoreset and episode wrappers
    rollout_env = RenderRolloutWrapperTracking(env)

    # define the jit reset/step functions
    jit_reset = jax.jit(rollout_env.reset)  # expect: JIT301
    jit_step = jax.jit(rollout_env.step)  # expect: JIT301

    jit_inference_fn = jax.jit(make_policy(params, deterministic=True))  # expect: JIT301
    rollout_key, reset_rng, act_rng = jax.random.split(rollout_key, 3)

    # do a rollout on the saved model
    state = jit_reset(reset_rng)

    rollout = [state]
    for i in range(int(ref_trak_config.clip_length * env._steps_for_cur_frame)):
        _, act_rng = jax.random.split(act_rng)  # expect: JIT502
        obs = state.obs
        ctrl, extras = jit_inference_fn(obs, act_rng)
        state = jit_step(state, ctrl)
        rollout.append(state)

    pos_rewards = [state.metrics["pos_reward"] for state in rollout]
    return pos_rewards


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    cfg = {
        "reference_config": SimpleNamespace(clip_length=3),
        "env_config": SimpleNamespace(walker_name="rodent"),
        "walker_config": SimpleNamespace(rescale_factor=0.9),
    }
    env = TrackingEnvStandIn()
    model_path = "/tmp/track_mjx_model"
    networks = PPOImitationNetworks(IntentionNetworkStandIn(), None, TanhNormalStandIn())
    make_policy = make_inference_fn(networks)

    def policy_params_fn(current_step, make_policy, params, policy_params_fn_key):
        """wrapper function that pass in some args that this file has"""
        return setup_training_logging(
            current_step,
            make_policy,
            params,
            policy_params_fn_key,
            cfg=cfg,
            env=env,
            model_path=model_path,
        )

    # stand-in for train_fn: three evaluations during training, each with new params
    key = jax.random.PRNGKey(0)
    for current_step in range(3):
        key, params_key, eval_key = jax.random.split(key, 3)
        k1, k2 = jax.random.split(params_key)
        params = (None, {"enc": jax.random.normal(k1, (2, 2)), "dec": jax.random.normal(k2, (2, 4))})
        policy_params_fn(current_step, make_policy, params, eval_key)

    # observed: line 218, line 219 and line 221 jit fresh functions on every evaluation: each compiles 3 times
    assert compiles.count("jit(reset)") == 3, compiles
    assert compiles.count("jit(step)") == 3, compiles
    assert compiles.count("jit(policy)") == 3, compiles

    # observed: line 229 splits act_rng after jit_inference_fn consumed it (the policy splits
    # it into key_sample and key_network), so the next act_rng is the key_network just used
    import traceback
    try:
        with jax.debug_key_reuse(True):
            policy_params_fn(3, make_policy, params, jax.random.key(1))
    except jax.errors.KeyReuseError as err:
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == __file__]
        assert frames[-1].lineno == 229, frames[-1]
    else:
        raise AssertionError("no key reuse reported")
