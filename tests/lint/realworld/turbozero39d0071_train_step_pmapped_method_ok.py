# source: https://github.com/lowrollr/turbozero/blob/39d00716479eaacb1ee8af63f1e65c1078704008/core/training/train.py
#   (the fix of "fix train step recompiling": one_train_step is a Trainer method, pmapped
#   once with self as a static broadcasted argument, and train_steps calls self.one_train_step)
# observed on jax 0.10.2 CPU: train_steps reuses the one pmapped method: after the first
#   epoch (whose second step traces again for the replicated outputs) no epoch traces or
#   compiles the train step again (traces after 4 epochs: [2, 2, 2, 2]). Excerpt:
#   one_train_step and train_steps as written, with az_default_loss_fn
#   (core/training/loss_fns.py) and BaseExperience (core/memory/replay_memory.py) of the
#   same commit. Added: a trimmed Trainer.__init__ (loss_fn, memory_buffer,
#   train_batch_size, num_devices), a CollectionState with only key and buffer_state, a
#   stand-in EpisodeReplayBuffer whose sample draws random experiences, a tiny flax
#   policy/value network, and the epoch loop in __main__; `jax.tree_map` (removed) is
#   spelled `jax.tree.map`.
# gap: per-call-recompile
from functools import partial
from typing import Tuple

import chex
from chex import dataclass
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState


@dataclass(frozen=True)
class BaseExperience:
    reward: chex.Array
    policy_weights: chex.Array
    policy_mask: chex.Array
    observation_nn: chex.Array
    cur_player_id: chex.Array


@dataclass(frozen=True)
class CollectionState:
    # trimmed: eval_state, env_state and metadata left out
    key: jax.random.PRNGKey
    buffer_state: chex.ArrayTree


class EpisodeReplayBuffer:
    # stand-in: draws random experiences instead of reading the buffer
    def sample(self, state, key, sample_size):
        k1, k2, k3 = jax.random.split(key, 3)
        logits = jax.random.normal(k1, (sample_size, 4))
        return BaseExperience(
            reward=jax.random.normal(k2, (sample_size, 2)),
            policy_weights=jax.nn.softmax(logits),
            policy_mask=jnp.ones((sample_size, 4), dtype=bool),
            observation_nn=jax.random.normal(k3, (sample_size, 6)),
            cur_player_id=jnp.zeros((sample_size,), dtype=jnp.int32),
        )


class PolicyValueNet(nn.Module):
    # stand-in for AZResnet
    @nn.compact
    def __call__(self, x, train=False):
        h = nn.relu(nn.Dense(8)(x))
        return nn.Dense(4)(h), nn.Dense(1)(h)


def az_default_loss_fn(params: chex.ArrayTree, train_state: TrainState, experience: BaseExperience,
                       l2_reg_lambda: float = 0.0001) -> Tuple[chex.Array, Tuple[chex.ArrayTree, optax.OptState]]:

    variables = {'params': params, 'batch_stats': train_state.batch_stats} \
        if hasattr(train_state, 'batch_stats') else {'params': params}

    mutables = ['batch_stats'] if hasattr(train_state, 'batch_stats') else []

    (pred_policy, pred_value), updates = train_state.apply_fn(
        variables,
        x=experience.observation_nn,
        train=True,
        mutable=mutables
    )

    pred_policy = jnp.where(
        experience.policy_mask,
        pred_policy,
        jnp.finfo(jnp.float32).min
    )
    policy_loss = optax.softmax_cross_entropy(pred_policy, experience.policy_weights).mean()
    # select appropriate value from experience.reward
    current_player = experience.cur_player_id
    target_value = experience.reward[jnp.arange(experience.reward.shape[0]), current_player]
    value_loss = optax.l2_loss(pred_value.squeeze(), target_value).mean()

    l2_reg = l2_reg_lambda * jax.tree_util.tree_reduce(
        lambda x, y: x + y,
        jax.tree.map(
            lambda x: (x ** 2).sum(),
            params
        )
    )

    loss = policy_loss + value_loss + l2_reg
    aux_metrics = {
        'policy_loss': policy_loss,
        'value_loss': value_loss
    }
    return loss, (aux_metrics, updates)


class Trainer:
    def __init__(self, train_batch_size, loss_fn, memory_buffer, num_devices=None):
        # trimmed to what train_steps reads
        self.train_batch_size = train_batch_size
        self.loss_fn = loss_fn
        self.memory_buffer = memory_buffer
        self.num_devices = num_devices if num_devices is not None else jax.local_device_count()

    @partial(jax.pmap, axis_name='d', static_broadcasted_argnums=(0,))
    def one_train_step(self, ts: TrainState, batch: BaseExperience) -> Tuple[TrainState, dict]:
        grad_fn = jax.value_and_grad(self.loss_fn, has_aux=True)
        (loss, (metrics, updates)), grads = grad_fn(ts.params, ts, batch)
        grads = jax.lax.pmean(grads, axis_name='d')
        ts = ts.apply_gradients(grads=grads)
        if hasattr(ts, 'batch_stats'):
            ts = ts.replace(batch_stats=jax.lax.pmean(updates['batch_stats'], axis_name='d'))
        metrics = {
            **metrics,
            'loss': loss
        }
        return ts, metrics

    def train_steps(self,
        collection_state: CollectionState,
        train_state: TrainState,
        num_steps: int
    ) -> Tuple[CollectionState, TrainState, dict]:
        buffer_state = collection_state.buffer_state

        key, new_key = jax.random.split(collection_state.key[0,0], 2)
        new_keys = collection_state.key.at[0,0].set(new_key)

        batch_metrics = []

        for _ in range(num_steps):
            step_key, key = jax.random.split(key)

            batch = self.memory_buffer.sample(buffer_state, step_key, self.train_batch_size)
            batch = jax.tree.map(lambda x: x.reshape((self.num_devices, -1, *x.shape[1:])), batch)

            train_state, metrics = self.one_train_step(train_state, batch)
            if metrics:
                batch_metrics.append(metrics)

        if batch_metrics:
            metrics = {k: jnp.stack([m[k] for m in batch_metrics]).mean() for k in batch_metrics[0].keys()}
        else:
            metrics = {}
        return collection_state.replace(key=new_keys), train_state, metrics


if __name__ == "__main__":
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: traces.append(kw.get("fun_name"))
        if event == "/jax/core/compile/jaxpr_trace_duration" else None
    )

    trainer = Trainer(train_batch_size=8, loss_fn=az_default_loss_fn,
                      memory_buffer=EpisodeReplayBuffer())
    n_dev = trainer.num_devices
    net = PolicyValueNet()
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 6)))['params']
    ts = TrainState.create(apply_fn=net.apply, params=params, tx=optax.adam(1e-3))
    ts = jax.tree.map(lambda x: jnp.stack([x] * n_dev), ts)
    keys = jax.random.split(jax.random.PRNGKey(1), n_dev * 2).reshape(n_dev, 2, -1)
    collection_state = CollectionState(key=keys, buffer_state=None)

    per_epoch = []
    for epoch in range(4):
        collection_state, ts, metrics = trainer.train_steps(collection_state, ts, num_steps=2)
        per_epoch.append(traces.count("_fun"))  # jax 0.10.2 names pmapped traces _fun
    assert int(ts.step[0]) == 8
    # the pmapped method is traced for the first epoch only
    assert [b - a for a, b in zip(per_epoch, per_epoch[1:])] == [0, 0, 0], per_epoch
    print("traces of one_train_step after each epoch:", per_epoch)
