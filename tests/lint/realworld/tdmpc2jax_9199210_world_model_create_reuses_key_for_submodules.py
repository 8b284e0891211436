# source: https://github.com/ShaneFlandermeyer/tdmpc2-jax/blob/41740e7ae574ed703de46a8d64d11e18f0f8c790/tdmpc2_jax/world_model.py
#   (WorldModel.create before commit 9199210 "Fix initialization keys for world model
#   submodules", which splits encoder_key, policy_key and continue_key off `key`)
# observed on jax 0.10.2 CPU: create splits `key` into three keys for the dynamics,
#   reward and value models, then initialises the encoder, the policy and the continue
#   model all from `key` itself. flax derives each layer's key from the root key and the
#   layer's path, so the policy's layers_0 kernel starts with the same numbers as the
#   encoder's (the draws of a flattened shape share their prefix), and the continue
#   model, built like the policy, starts with exactly the policy's first two layers.
#   (JAX's key-reuse checker stays silent: flax's init only folds the key in.) Kept
#   verbatim: the WorldModel fields and create (its later methods left out), NormedLinear,
#   Ensemble, mish and simnorm (tdmpc2_jax/networks and common/activations.py at the same
#   commit; simnorm reshapes instead of calling einops.rearrange, which is not installed).
#   Stand-ins: a gymnasium Box with shape and sample() (gymnasium is not installed), and
#   the __main__ block, which builds the encoder as tdmpc2_jax/train.py does, with small
#   sizes, predict_continues=True and float32.
# gap: other
import copy
from functools import partial
from typing import Callable, Dict, Optional

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from flax.training.train_state import TrainState
from jaxtyping import PRNGKeyArray


class Box:
  # stand-in for gymnasium.spaces.Box (gymnasium is not installed)
  def __init__(self, low, high, shape, seed=0):
    self.low, self.high, self.shape = low, high, shape
    self._rng = np.random.default_rng(seed)

  def sample(self):
    return self._rng.uniform(self.low, self.high, self.shape).astype(np.float32)


class gym:  # stand-in namespace for the annotations
  Space = Box


# tdmpc2_jax/common/activations.py at the same commit (simnorm without einops)
def mish(x: jax.Array) -> jax.Array:
  return x * jnp.tanh(jnp.log(1 + jnp.exp(x)))


def simnorm(x: jax.Array, simplex_dim: int = 8) -> jax.Array:
  x = x.reshape(*x.shape[:-1], -1, simplex_dim)
  x = jax.nn.softmax(x, axis=-1)
  return x.reshape(*x.shape[:-2], -1)


# tdmpc2_jax/networks/mlp.py at the same commit
class NormedLinear(nn.Module):
  features: int
  activation: Callable[[jax.Array], jax.Array] = nn.relu
  dropout_rate: Optional[float] = None
  norm: nn.Module = nn.LayerNorm

  kernel_init: Callable = nn.initializers.truncated_normal(stddev=0.02)
  dtype: jnp.dtype = jnp.bfloat16  # Switch this to bfloat16 for speed
  param_dtype: jnp.dtype = jnp.float32

  @nn.compact
  def __call__(self, x: jax.Array, training: bool = True) -> jax.Array:
    x = nn.Dense(features=self.features,
                 kernel_init=self.kernel_init,
                 bias_init=nn.initializers.zeros_init(),
                 dtype=self.dtype,
                 param_dtype=self.param_dtype)(x)

    x = self.norm()(x)

    if self.activation is not None:
      x = self.activation(x)

    if self.dropout_rate is not None and self.dropout_rate > 0:
      x = nn.Dropout(rate=self.dropout_rate)(x, deterministic=not training)

    return x


# tdmpc2_jax/networks/ensemble.py at the same commit
class Ensemble(nn.Module):
    base_module: nn.Module
    num: int = 2

    @nn.compact
    def __call__(self, *args, **kwargs):
        ensemble = nn.vmap(self.base_module,
                           variable_axes={'params': 0},
                           split_rngs={
                               'params': True,
                               'dropout': True
                           },
                           in_axes=None,
                           out_axes=0,
                           axis_size=self.num)
        return ensemble()(*args, **kwargs)



class WorldModel(struct.PyTreeNode):
  # Models
  encoder: TrainState
  dynamics_model: TrainState
  reward_model: TrainState
  policy_model: TrainState
  value_model: TrainState
  target_value_model: TrainState
  continue_model: TrainState
  # Spaces
  observation_space: gym.Space = struct.field(pytree_node=False)
  action_space: gym.Space = struct.field(pytree_node=False)
  action_dim: int = struct.field(pytree_node=False)
  # Architecture
  mlp_dim: int = struct.field(pytree_node=False)
  latent_dim: int = struct.field(pytree_node=False)
  num_value_nets: int = struct.field(pytree_node=False)
  num_bins: int = struct.field(pytree_node=False)
  symlog_min: float
  symlog_max: float
  predict_continues: bool = struct.field(pytree_node=False)
  symlog_obs: bool = struct.field(pytree_node=False)

  @classmethod
  def create(cls,
             # Spaces
             observation_space: gym.Space,
             action_space: gym.Space,
             # Models
             encoder_module: nn.Module,
             # Architecture
             mlp_dim: int,
             latent_dim: int,
             value_dropout: float,
             num_value_nets: int,
             num_bins: int,
             symlog_min: float,
             symlog_max: float,
             simnorm_dim: int,
             predict_continues: bool,
             symlog_obs: bool,
             # Optimization
             learning_rate: float,
             encoder_learning_rate: float,
             max_grad_norm: float = 10,
             # Misc
             encoder_optim: Callable = optax.adam,
             tabulate: bool = False,
             dtype: jnp.dtype = jnp.float32,
             *,
             key: PRNGKeyArray,
             ):
    dynamics_key, reward_key, value_key = jax.random.split(key, 3)

    action_dim = np.prod(action_space.shape)

    encoder = TrainState.create(
        apply_fn=encoder_module.apply,
        params=encoder_module.init(
            key, observation_space.sample())['params'],
        tx=optax.chain(
            optax.clip_by_global_norm(max_grad_norm),
            encoder_optim(encoder_learning_rate),
        ))

    # Latent forward dynamics model
    dynamics_module = nn.Sequential([
        NormedLinear(mlp_dim, activation=mish, dtype=dtype),
        NormedLinear(mlp_dim, activation=mish, dtype=dtype),
        NormedLinear(latent_dim, activation=partial(
            simnorm, simplex_dim=simnorm_dim), dtype=dtype)
    ])
    dynamics_model = TrainState.create(
        apply_fn=dynamics_module.apply,
        params=dynamics_module.init(
            dynamics_key, jnp.zeros(latent_dim + action_dim))['params'],
        tx=optax.chain(
            optax.clip_by_global_norm(max_grad_norm),
            optax.adam(learning_rate),
        ))

    # Transition reward model
    reward_module = nn.Sequential([
        NormedLinear(mlp_dim, activation=mish, dtype=dtype),
        NormedLinear(mlp_dim, activation=mish, dtype=dtype),
        nn.Dense(num_bins, kernel_init=nn.initializers.zeros)
    ])
    reward_model = TrainState.create(
        apply_fn=reward_module.apply,
        params=reward_module.init(
            reward_key, jnp.zeros(latent_dim + action_dim))['params'],
        tx=optax.chain(
            optax.clip_by_global_norm(max_grad_norm),
            optax.adam(learning_rate),
        ))

    # Policy model
    policy_module = nn.Sequential([
        NormedLinear(mlp_dim, activation=mish, dtype=dtype),
        NormedLinear(mlp_dim, activation=mish, dtype=dtype),
        nn.Dense(2*action_dim,
                 kernel_init=nn.initializers.truncated_normal(0.02))
    ])
    policy_model = TrainState.create(
        apply_fn=policy_module.apply,
        params=policy_module.init(key, jnp.zeros(latent_dim))['params'],  # expect: JIT502
        tx=optax.chain(
            optax.clip_by_global_norm(max_grad_norm),
            optax.adam(learning_rate, eps=1e-5),
        ))

    # Return/value model (ensemble)
    value_param_key, value_dropout_key = jax.random.split(value_key)
    value_base = partial(nn.Sequential, [
        NormedLinear(mlp_dim, activation=mish,
                     dropout_rate=value_dropout, dtype=dtype),
        NormedLinear(mlp_dim, activation=mish, dtype=dtype),
        nn.Dense(num_bins, kernel_init=nn.initializers.zeros)])
    value_ensemble = Ensemble(value_base, num=num_value_nets)
    value_model = TrainState.create(
        apply_fn=value_ensemble.apply,
        params=value_ensemble.init(
            {'params': value_param_key, 'dropout': value_dropout_key},
            jnp.zeros(latent_dim + action_dim))['params'],
        tx=optax.chain(
            optax.clip_by_global_norm(max_grad_norm),
            optax.adam(learning_rate),
        ))
    target_value_model = TrainState.create(
        apply_fn=value_ensemble.apply,
        params=copy.deepcopy(value_model.params),
        tx=optax.GradientTransformation(lambda _: None, lambda _: None))

    if predict_continues:
      continue_module = nn.Sequential([
          NormedLinear(mlp_dim, activation=mish, dtype=dtype),
          NormedLinear(mlp_dim, activation=mish, dtype=dtype),
          nn.Dense(1, kernel_init=nn.initializers.zeros)
      ])
      continue_model = TrainState.create(
          apply_fn=continue_module.apply,
          params=continue_module.init(  # expect: JIT502
              key, jnp.zeros(latent_dim))['params'],
          tx=optax.chain(
              optax.clip_by_global_norm(max_grad_norm),
              optax.adam(learning_rate),
          ))
    else:
      continue_model = None

    if tabulate:
      print("Encoder")
      print("-------")
      print(encoder_module.tabulate(jax.random.key(0),
            observation_space.sample(), compute_flops=True))

      print("Dynamics Model")
      print("--------------")
      print(dynamics_module.tabulate(jax.random.key(0), jnp.ones(
          latent_dim + action_dim), compute_flops=True))

      print("Reward Model")
      print("------------")
      print(reward_module.tabulate(jax.random.key(0), jnp.ones(
          latent_dim + action_dim), compute_flops=True))

      print("Policy Model")
      print("------------")
      print(policy_module.tabulate(jax.random.key(0), jnp.ones(
          latent_dim), compute_flops=True))

      print("Value Model")
      print("-----------")
      value_param_key, value_dropout_key = jax.random.split(value_key)
      print(value_ensemble.tabulate(
          {'params': value_param_key, 'dropout': value_dropout_key},
          jnp.ones(latent_dim + action_dim), compute_flops=True))

      if predict_continues:
        print("Continue Model")
        print("--------------")
        print(continue_module.tabulate(jax.random.key(0), jnp.ones(
            latent_dim), compute_flops=True))

    return cls(
        # Spaces
        observation_space=observation_space,
        action_space=action_space,
        action_dim=action_dim,
        # Models
        encoder=encoder,
        dynamics_model=dynamics_model,
        reward_model=reward_model,
        policy_model=policy_model,
        value_model=value_model,
        target_value_model=target_value_model,
        continue_model=continue_model,
        # Architecture
        mlp_dim=mlp_dim,
        latent_dim=latent_dim,
        num_value_nets=num_value_nets,
        num_bins=num_bins,
        symlog_min=float(symlog_min),
        symlog_max=float(symlog_max),
        predict_continues=predict_continues,
        symlog_obs=symlog_obs
    )

if __name__ == "__main__":
  # the encoder train.py builds (encoder_dim, num_encoder_layers=2), small sizes
  mlp_dim, latent_dim, simnorm_dim = 64, 64, 8
  encoder = nn.Sequential([
      NormedLinear(32, activation=mish, dtype=jnp.float32)
      for _ in range(2-1)] + [
      NormedLinear(
          latent_dim,
          activation=partial(simnorm, simplex_dim=simnorm_dim),
          dtype=jnp.float32)
  ])
  model = WorldModel.create(
      observation_space=Box(-1.0, 1.0, (11,)),
      action_space=Box(-1.0, 1.0, (3,)),
      encoder_module=encoder,
      mlp_dim=mlp_dim, latent_dim=latent_dim, value_dropout=0.01,
      num_value_nets=5, num_bins=101, symlog_min=-10, symlog_max=10,
      simnorm_dim=simnorm_dim, predict_continues=True, symlog_obs=True,
      learning_rate=3e-4, encoder_learning_rate=1e-4, dtype=jnp.float32,
      key=jax.random.key(0))
  enc = model.encoder.params['layers_0']['Dense_0']['kernel'].ravel()
  pol = model.policy_model.params['layers_0']['Dense_0']['kernel'].ravel()
  con = model.continue_model.params['layers_0']['Dense_0']['kernel'].ravel()
  con1 = model.continue_model.params['layers_1']['Dense_0']['kernel']
  pol1 = model.policy_model.params['layers_1']['Dense_0']['kernel']
  print(enc[:3], pol[:3])
  # observed: line 212 initialises the policy from the encoder's key: its first kernel
  # starts with the encoder's numbers
  assert bool(jnp.array_equal(enc, pol[:enc.size]))
  # observed: line 248 initialises the continue model from the same key: its first
  # two layers equal the policy's
  assert bool(jnp.array_equal(con, pol)) and bool(jnp.array_equal(con1, pol1))
