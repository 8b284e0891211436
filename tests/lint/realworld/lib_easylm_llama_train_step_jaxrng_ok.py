# source: https://github.com/young-geng/EasyLM/blob/fe5b2c354e25d697fce7cd225e23bbbe72570da3/EasyLM/models/llama/llama_train.py
#   (init_fn, train_step, eval_step, their pjit wrappers with donate_argnums, and the
#   training loop's rng hand-over), with JaxRNG, names_in_current_mesh,
#   get_names_from_parition_spec, with_sharding_constraint, init_rng, next_rng,
#   cross_entropy_loss_and_accuracy, global_norm and average_metrics from
#   https://github.com/young-geng/EasyLM/blob/fe5b2c354e25d697fce7cd225e23bbbe72570da3/EasyLM/jax_utils.py
# observed on jax 0.10.2 CPU (flax 0.12.8): three training steps and an eval step run under
#   pjit with the train state and the rng donated; JaxRNG is built inside each traced step
#   from the rng argument, so its `self.rng` writes stay inside the trace, and the step
#   returns the advanced key, which the loop rebinds: the dropout keys differ from step to
#   step, and no donated array is read again. train_step compiles twice, once for the
#   first key (made by next_rng() on one device) and once for the keys that come back
#   with the mesh's sharding; the third step hits the cache. The global
#   `jax_utils_rng` behind next_rng() is only used outside the traced functions.
#   Changed: `jax.tree_map` (removed) is `jax.tree.map` in average_metrics. Stand-ins
#   (transformers, mlxu and the LLaMA model are not installed): FlaxLLaMAForCausalLMModule is
#   an embedding, dropout and dense layer returning `.logits`; LLaMAConfigurator.rng_keys
#   is copied from llama_model.py; the optimizer is optax.adamw with a constant schedule in
#   optimizer_info; the dataset yields fixed token batches; partition specs are PS(), and
#   the mesh is one device with the axes ('dp', 'fsdp', 'mp').
# gap: stale-state-attributes
from functools import partial
from types import SimpleNamespace

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState
from jax.experimental.pjit import pjit
from jax.interpreters import pxla
from jax.sharding import PartitionSpec as PS


class JaxRNG(object):
    """ A convenient stateful Jax RNG wrapper. Can be used to wrap RNG inside
        pure function.
    """

    @classmethod
    def from_seed(cls, seed):
        return cls(jax.random.PRNGKey(seed))

    def __init__(self, rng):
        self.rng = rng

    def __call__(self, keys=None):
        if keys is None:
            self.rng, split_rng = jax.random.split(self.rng)
            return split_rng
        elif isinstance(keys, int):
            split_rngs = jax.random.split(self.rng, num=keys + 1)
            self.rng = split_rngs[0]
            return tuple(split_rngs[1:])
        else:
            split_rngs = jax.random.split(self.rng, num=len(keys) + 1)
            self.rng = split_rngs[0]
            return {key: val for key, val in zip(keys, split_rngs[1:])}


def names_in_current_mesh(*names):
    """ Check if current mesh axes contain these names. """
    mesh_axis_names = pxla.thread_resources.env.physical_mesh.axis_names
    return set(names) <= set(mesh_axis_names)


def get_names_from_parition_spec(partition_specs):
    """ Return axis names from partition specs. """
    names = set()
    if isinstance(partition_specs, dict):
        partition_specs = partition_specs.values()
    for item in partition_specs:
        if item is None:
            continue
        elif isinstance(item, str):
            names.add(item)
        else:
            names.update(get_names_from_parition_spec(item))

    return list(names)


def with_sharding_constraint(x, partition_specs):
    """ A smarter version of with_sharding_constraint that only applies the
        constraint if the current mesh contains the axes in the partition specs.
    """
    axis_names = get_names_from_parition_spec(partition_specs)
    if names_in_current_mesh(*axis_names):
        x = jax.lax.with_sharding_constraint(x, partition_specs)
    return x


def init_rng(seed):
    global jax_utils_rng
    jax_utils_rng = JaxRNG.from_seed(seed)


def next_rng(*args, **kwargs):
    global jax_utils_rng
    return jax_utils_rng(*args, **kwargs)


def cross_entropy_loss_and_accuracy(logits, tokens, valid=None):
    if valid is None:
        valid = jnp.ones(tokens.shape[:2])
    valid = valid.astype(jnp.float32)
    valid_text_length = jnp.maximum(jnp.sum(valid, axis=-1), 1e-10)
    logits = logits.astype(jnp.float32) # for numerical stability
    token_log_prob = jnp.squeeze(
        jnp.take_along_axis(
            jax.nn.log_softmax(logits, axis=-1),
            jnp.expand_dims(tokens, -1),
            axis=-1,
        ),
        -1,
    )
    token_log_prob = jnp.where(valid > 0.0, token_log_prob, jnp.array(0.0))
    loss = -jnp.mean(jnp.sum(token_log_prob, axis=-1) / valid_text_length)
    correct = jnp.where(
        valid > 0.0,
        jnp.argmax(logits, axis=-1) == tokens,
        jnp.array(False)
    )
    accuracy = jnp.mean(jnp.sum(correct, axis=-1) / valid_text_length)
    return loss, accuracy


def global_norm(tree):
    """ Return the global L2 norm of a pytree. """
    squared = jax.tree_util.tree_map(lambda x: jnp.sum(jnp.square(x)), tree)
    flattened, _ = jax.flatten_util.ravel_pytree(squared)
    return jnp.sqrt(jnp.sum(flattened))


def average_metrics(metrics):
    return jax.tree.map(
        lambda *args: jnp.mean(jnp.stack(args)),
        *metrics
    )


# ---- stand-ins for the LLaMA model, its configurator, the optimizer factory and the data ----
class LLaMAConfigurator:
    @staticmethod
    def rng_keys():
        return ('params', 'dropout', 'fcm')


class FlaxLLaMAForCausalLMModule(nn.Module):
    vocab_size: int = 32

    @nn.compact
    def __call__(self, input_ids, attention_mask=None, position_ids=None, deterministic=True):
        x = nn.Embed(self.vocab_size, 16)(input_ids)
        x = nn.Dropout(rate=0.5)(x, deterministic=deterministic)
        return SimpleNamespace(logits=nn.Dense(self.vocab_size)(x))


seq_length = 8
model = FlaxLLaMAForCausalLMModule()
optimizer_info = dict(learning_rate_schedule=optax.constant_schedule(1e-3))
optimizer = optax.adamw(optimizer_info['learning_rate_schedule'])
batches = [
    dict(input_tokens=jnp.full((4, seq_length), i, jnp.int32), target_tokens=jnp.full((4, seq_length), i + 1, jnp.int32),
         loss_masks=jnp.ones((4, seq_length)))
    for i in range(3)
]
# ---- end of stand-ins ----


def init_fn(rng):
    rng_generator = JaxRNG(rng)
    params = model.init(
        input_ids=jnp.zeros((4, seq_length), dtype=jnp.int32),
        position_ids=jnp.zeros((4, seq_length), dtype=jnp.int32),
        attention_mask=jnp.ones((4, seq_length), dtype=jnp.int32),
        rngs=rng_generator(LLaMAConfigurator.rng_keys()),
    )
    return TrainState.create(params=params, tx=optimizer, apply_fn=None)


def train_step(train_state, rng, batch):
    rng_generator = JaxRNG(rng)
    batch = with_sharding_constraint(batch, PS(('dp', 'fsdp')))
    def loss_and_accuracy(params):
        logits = model.apply(
            params, batch['input_tokens'], deterministic=False,
            rngs=rng_generator(LLaMAConfigurator.rng_keys()),
        ).logits
        return cross_entropy_loss_and_accuracy(
            logits, batch['target_tokens'], batch['loss_masks']
        )
    grad_fn = jax.value_and_grad(loss_and_accuracy, has_aux=True)
    (loss, accuracy), grads = grad_fn(train_state.params)
    train_state = train_state.apply_gradients(grads=grads)
    metrics = dict(
        loss=loss,
        accuracy=accuracy,
        learning_rate=optimizer_info['learning_rate_schedule'](train_state.step),
        gradient_norm=global_norm(grads),
        param_norm=global_norm(train_state.params),
    )
    return train_state, rng_generator(), metrics


def eval_step(train_state, rng, batch):
    rng_generator = JaxRNG(rng)
    batch = with_sharding_constraint(batch, PS(('dp', 'fsdp')))
    logits = model.apply(
        train_state.params, batch['input_tokens'], deterministic=True,
        rngs=rng_generator(LLaMAConfigurator.rng_keys()),
    ).logits
    loss, accuracy = cross_entropy_loss_and_accuracy(
        logits, batch['target_tokens'], batch['loss_masks']
    )
    metrics = dict(
        eval_loss=loss,
        eval_accuracy=accuracy,
    )
    return rng_generator(), metrics


sharded_init_fn = pjit(
    init_fn,
    in_shardings=PS(),
    out_shardings=PS()
)

sharded_train_step = pjit(
    train_step,
    in_shardings=(PS(), PS(), PS()),
    out_shardings=(PS(), PS(), PS()),
    donate_argnums=(0, 1),
)

sharded_eval_step = pjit(
    eval_step,
    in_shardings=(PS(), PS(), PS()),
    out_shardings=(PS(), PS()),
    donate_argnums=(1,),
)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    init_rng(0)
    # stand-in for LLaMAConfigurator.get_jax_mesh(FLAGS.mesh_dim) on one device
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]).reshape(1, 1, 1), ('dp', 'fsdp', 'mp'))
    with mesh:
        train_state = sharded_init_fn(next_rng())
        sharded_rng = next_rng()

        rngs_seen = []
        for step, batch in enumerate(batches):
            rngs_seen.append(np.asarray(sharded_rng))
            train_state, sharded_rng, metrics = sharded_train_step(
                train_state, sharded_rng, batch
            )

            if step % 1 == 0:
                eval_metric_list = []
                for _ in range(2):
                    sharded_rng, eval_metrics = sharded_eval_step(
                        train_state, sharded_rng, batches[0]
                    )
                    eval_metric_list.append(eval_metrics)
                metrics.update(average_metrics(eval_metric_list))

    assert int(train_state.step) == 3
    assert len({r.tobytes() for r in rngs_seen}) == 3
    # the first key comes from next_rng() on one device, later ones back from the mesh:
    # train_step compiles for each of the two shardings, then hits its cache
    assert compiles.count("jit(train_step)") == 2, compiles
    assert np.isfinite(float(metrics["loss"])) and np.isfinite(float(metrics["eval_loss"]))
