# source: https://github.com/nissymori/JAX-CORL/issues/20
# observed on jax 0.10.2 CPU: see the per-line observed comments; train_n_step (from the issue) jits a method whose body mutates the static `self`, samples minibatches with np.random at trace time, and unrolls its Python loop
# gap: stale-state-attributes
# train_n_step is verbatim from the issue; batch_to_jax, update_target_network, index_batch,
# subsample_batch and ConservativeSAC.train are verbatim from algo/cql.py at
# https://github.com/nissymori/JAX-CORL/blob/77d391e/algo/cql.py (the CQL file of the date).
# Stand-ins: mlxu's global next_rng (a module-level key split on each call, as mlxu does);
# ConservativeSAC.__init__ and _train_step reduced to one linear Q-function regressed on the
# rewards (the original is the 200-line CQL loss); a small random dataset instead of D4RL.
from copy import deepcopy
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState

_global_rng = jax.random.PRNGKey(42)


def next_rng():
    # stand-in for mlxu.jax_utils.next_rng
    global _global_rng
    _global_rng, split_rng = jax.random.split(_global_rng)
    return split_rng


@jax.jit
def batch_to_jax(batch):
    return jax.tree_util.tree_map(jax.device_put, batch)


def update_target_network(main_params, target_params, tau):
    return jax.tree_util.tree_map(
        lambda x, y: tau * x + (1.0 - tau) * y,
        main_params, target_params
    )


def index_batch(batch, indices):
    indexed = {}
    for key in batch.keys():
        indexed[key] = batch[key][indices, ...]
    return indexed


def subsample_batch(batch, size):
    indices = np.random.randint(batch['observations'].shape[0], size=size)  # expect: JIT204
    return index_batch(batch, indices)


class ConservativeSAC(object):

    def __init__(self, observation_dim, action_dim):
        self.observation_dim = observation_dim
        self.action_dim = action_dim
        self._train_states = {}
        qf1_params = {'w': jnp.zeros((observation_dim + action_dim,)), 'b': jnp.zeros(())}
        self._train_states['qf1'] = TrainState.create(
            params=qf1_params,
            tx=optax.adam(3e-4),
            apply_fn=None,
        )
        self._target_qf_params = deepcopy({'qf1': qf1_params})
        self._model_keys = ('qf1',)
        self._total_steps = 0

    def train(self, batch, bc=False):
        self._total_steps += 1  # expect: JIT202
        self._train_states, self._target_qf_params, metrics = self._train_step(  # expect: JIT202
            self._train_states, self._target_qf_params, next_rng(), batch, bc
        )
        return metrics

    @partial(jax.jit, static_argnames=('self', 'bc'))
    def _train_step(self, train_states, target_qf_params, rng, batch, bc=False):
        # stand-in for the CQL loss
        def loss_fn(params):
            x = jnp.concatenate([batch['observations'], batch['actions']], axis=-1)
            q = x @ params['w'] + params['b']
            return jnp.mean(jnp.square(q - batch['rewards']))

        loss, grads = jax.value_and_grad(loss_fn)(train_states['qf1'].params)
        new_train_states = {'qf1': train_states['qf1'].apply_gradients(grads=grads)}
        new_target_qf_params = {'qf1': update_target_network(
            new_train_states['qf1'].params, target_qf_params['qf1'], 5e-3)}
        metrics = dict(qf1_loss=loss)
        return new_train_states, new_target_qf_params, metrics

    @partial(jax.jit, static_argnames=("self", "bc", "batch_size", "n"))
    def train_n_step(self, dataset, batch_size, n, bc=False):
        for _ in range(n):  # expect: JIT303
            batch = batch_to_jax(subsample_batch(dataset, batch_size))
            metrics = self.train(batch, bc)
        return metrics


def make_dataset(rng, size=512, obs_dim=3, act_dim=2):
    return dict(
        observations=rng.normal(size=(size, obs_dim)).astype(np.float32),
        actions=rng.normal(size=(size, act_dim)).astype(np.float32),
        next_observations=rng.normal(size=(size, obs_dim)).astype(np.float32),
        rewards=rng.normal(size=(size,)).astype(np.float32),
        dones=np.zeros((size,), np.float32),
    )


if __name__ == "__main__":
    dataset = make_dataset(np.random.default_rng(0))
    sac = ConservativeSAC(3, 2)

    sac.train_n_step(dataset, 32, 4)
    # observed: line 70 _total_steps is 4 after three calls of 4 steps: the write ran only while tracing
    np_state = np.random.get_state()[1].copy()
    sac.train_n_step(dataset, 32, 4)
    sac.train_n_step(dataset, 32, 4)
    print("total_steps after 3 calls x 4 steps:", sac._total_steps)
    assert sac._total_steps == 4, sac._total_steps
    # observed: line 49 np.random.randint ran only at trace time: the cached calls drew nothing, every call reuses the same baked-in minibatch indices
    assert (np.random.get_state()[1] == np_state).all()
    # observed: line 71 self._train_states holds DynamicJaxprTracer values after the call (leaked tracers; the updates are lost)
    leaked = sac._train_states['qf1'].params['w']
    print("train state after train_n_step:", type(leaked).__name__)
    assert isinstance(leaked, jax.core.Tracer)

    # observed: line 93 the loop is unrolled: n=2 traces 2 inlined _train_step calls, n=8 traces 8
    def n_train_step_calls(n):
        fresh = ConservativeSAC(3, 2)
        jaxpr = ConservativeSAC.train_n_step.trace(fresh, dataset, 32, n).jaxpr
        return sum(1 for e in jaxpr.eqns if e.primitive.name in ("pjit", "jit")
                   and "_train_step" in str(e.params.get("name")))

    c2, c8 = n_train_step_calls(2), n_train_step_calls(8)
    print("inlined _train_step calls for n=2, n=8:", c2, c8)
    assert c8 == 4 * c2 and c2 == 2
