# source: https://github.com/kvfrans/jax-diffusion-transformer/blob/788a70325157a0d96c6938788affc84ea0309b68/train_diffusion.py
# observed on jax 0.10.2 CPU: (1) main replicates the DiffusionTrainer, and with it its single
#   `rng`, onto every device, so the pmapped `update` splits the same key on every device: every
#   device draws the same timesteps and the same noise eps for its own shard of the batch (the
#   repo's later train_flow.py adds `model = model.replace(rng=jax.random.split(rng,
#   len(jax.local_devices())))` after the replicate); (2) every training step encodes its batch
#   with the same replicated `vae_rng`, so the VAE posterior sample of every step, on every
#   device, uses the same Gaussian noise.
# gap: other
# Excerpt: DiffusionTrainer.update and main as written, trimmed: call_model, call_model_pmap,
#   validation_denoise and the denoise steps, the tfds dataset pipeline, wandb logging, the
#   evaluation block and checkpointing are left out, and the `debug_overfit` branch is kept.
# Added: XLA_FLAGS=--xla_force_host_platform_device_count=4 at the top (4 CPU devices);
#   stand-ins for FLAGS (a namespace with small sizes; `model` a hashable dict instead of an
#   ml_collections ConfigDict), the dataset (random images and labels), StableVAE (encode
#   draws mean + std * normal(key), as diffusers' latent_dist.sample does), DiT (a tiny flax
#   module with the same call signature and label dropout), GaussianDiffusion (q_sample only);
#   both stand-ins record the noise they draw with jax.debug.callback for the __main__ block;
#   utils/train_state.py's TrainState and target_update as in the repo; `return model` at the
#   end of main and the __main__ block. Renamed APIs: jax.tree_map -> jax.tree.map;
#   `jax.debug.visualize_array_sharding` (needs rich) left out.
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import functools
import types
from typing import Any, Callable
from functools import partial

import numpy as np
import tqdm
import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
import optax

_records = {"vae_noise": [], "eps": []}


def _record(name):
    def cb(x):
        _records[name].append(np.asarray(x).copy())
    return cb


class _Config(dict):  # stand-in for ml_collections.ConfigDict (hashable, attribute access)
    __hash__ = object.__hash__
    __eq__ = object.__eq__

    def __getattr__(self, k):
        return self[k]


model_config = _Config({
    'lr': 0.0001, 'beta1': 0.9, 'beta2': 0.99, 'diffusion_timesteps': 500,
    'hidden_size': 16, 'patch_size': 2, 'depth': 1, 'num_heads': 2, 'mlp_ratio': 1,
    'class_dropout_prob': 0.1, 'num_classes': 10, 'cfg_scale': 4.0, 'eps_update_rate': 0.9999,
})
FLAGS = types.SimpleNamespace(seed=0, batch_size=8, max_steps=3, log_interval=1,
                              debug_overfit=0, use_stable_vae=1, load_dir=None, model=model_config)


class StableVAE(flax.struct.PyTreeNode):  # stand-in for utils/stable_vae.py
    params: Any

    @classmethod
    def create(cls):
        return cls(params=jnp.linspace(-1.0, 1.0, 12).reshape(3, 4))

    @partial(jax.jit, static_argnames="scale")
    def encode(self, key, images, scale=True):
        mean = jnp.tanh(images @ self.params)
        noise = jax.random.normal(key, mean.shape)
        jax.debug.callback(_record("vae_noise"), noise)
        latents = mean + 0.1 * noise
        if scale:
            latents *= 0.18215
        return latents


class DiT(nn.Module):  # stand-in for diffusion_transformer.DiT
    patch_size: int
    hidden_size: int
    depth: int
    num_heads: int
    mlp_ratio: float
    class_dropout_prob: float
    num_classes: int

    @nn.compact
    def __call__(self, x, t, y, train=False, force_drop_ids=None):
        if train:
            drop = jax.random.bernoulli(self.make_rng('label_dropout'), self.class_dropout_prob, y.shape)
            y = jnp.where(drop, self.num_classes, y)
        emb = nn.Embed(self.num_classes + 1, x.shape[-1])(y)
        h = nn.Dense(self.hidden_size)(x) + (t[:, None, None, None] / 1000.0)
        return nn.Dense(x.shape[-1])(nn.gelu(h)) + emb[:, None, None, :]


class GaussianDiffusion:  # stand-in for schedulers.GaussianDiffusion (q_sample only)
    def __init__(self, timesteps):
        betas = np.linspace(1e-4, 0.02, timesteps)
        self.alphas_cumprod = np.cumprod(1.0 - betas)

    def q_sample(self, x_start, t, noise):
        jax.debug.callback(_record("eps"), noise)
        a = jnp.asarray(self.alphas_cumprod)[t][:, None, None, None]
        return jnp.sqrt(a) * x_start + jnp.sqrt(1.0 - a) * noise


# utils/train_state.py (as in the repo)
nonpytree_field = functools.partial(flax.struct.field, pytree_node=False)

def target_update(model, target_model, tau):
    new_target_params = jax.tree.map(
        lambda p, tp: p * tau + tp * (1 - tau), model.params, target_model.params
    )
    return target_model.replace(params=new_target_params)

class TrainState(flax.struct.PyTreeNode):
    step: int
    apply_fn: Callable = nonpytree_field()
    model_def: Any = nonpytree_field()
    params: Any
    tx: Any = nonpytree_field()
    opt_state: Any

    @classmethod
    def create(cls, model_def: nn.Module, params, tx=None, **kwargs):
        if tx is not None:
            opt_state = tx.init(params)
        else:
            opt_state = None

        return cls(
            step=1, apply_fn=model_def.apply, model_def=model_def, params=params,
            tx=tx, opt_state=opt_state, **kwargs,
        )

    def __call__(self, *args, params=None, method=None, **kwargs,):
        if params is None:
            params = self.params
        variables = {"params": params}
        if isinstance(method, str):
            method = getattr(self.model_def, method)
        return self.apply_fn(variables, *args, method=method, **kwargs)


##############################################
## Model Definitions.
##############################################

class DiffusionTrainer(flax.struct.PyTreeNode):
    rng: Any
    model: TrainState
    model_eps: TrainState
    config: dict = flax.struct.field(pytree_node=False)
    scheduler: Any = flax.struct.field(pytree_node=False)

    @partial(jax.pmap, axis_name='data')
    def update(self, images, labels, pmap_axis='data'):
        new_rng, label_key, time_key, noise_key = jax.random.split(self.rng, 4)

        def loss_fn(params):
            random_t = jax.random.randint(time_key, (images.shape[0],), 0, self.config['diffusion_timesteps'])
            eps = jax.random.normal(noise_key, images.shape)
            x_t = self.scheduler.q_sample(images, random_t, eps)
            
            eps_prime = self.model(x_t, random_t, labels, train=True, rngs={'label_dropout': label_key}, params=params)
            l2_loss_eps = jnp.mean((eps_prime - eps) ** 2)
            
            loss = l2_loss_eps
            return loss, {
                'l2_loss_eps': l2_loss_eps,
                'eps_abs_mean': jnp.abs(eps).mean(),
                'eps_pred_abs_mean': jnp.abs(eps_prime).mean(),
            }
        
        grads, info = jax.grad(loss_fn, has_aux=True)(self.model.params)
        grads = jax.lax.pmean(grads, axis_name=pmap_axis)
        info = jax.lax.pmean(info, axis_name=pmap_axis)

        updates, new_opt_state = self.model.tx.update(grads, self.model.opt_state, self.model.params)
        new_params = optax.apply_updates(self.model.params, updates)
        new_model = self.model.replace(step=self.model.step + 1, params=new_params, opt_state=new_opt_state)

        info['grad_norm'] = optax.global_norm(grads)
        info['update_norm'] = optax.global_norm(updates)
        info['param_norm'] = optax.global_norm(new_params)

        new_model_eps = target_update(self.model, self.model_eps, 1-self.config['eps_update_rate'])

        new_trainer = self.replace(rng=new_rng, model=new_model, model_eps=new_model_eps)
        return new_trainer, info


def _stand_in_dataset(batch_size, seed):
    rs = np.random.RandomState(seed)
    while True:
        yield rs.uniform(-1, 1, (batch_size, 8, 8, 3)).astype(np.float32), rs.randint(0, 10, batch_size)


##############################################
## Training Code.
##############################################
def main(_):
    np.random.seed(FLAGS.seed)
    print("Using devices", jax.local_devices())
    device_count = len(jax.local_devices())
    global_device_count = jax.device_count()
    print("Device count", device_count)
    print("Global device count", global_device_count)
    local_batch_size = FLAGS.batch_size // (global_device_count // device_count)

    dataset = _stand_in_dataset(local_batch_size, 1)
    dataset_valid = _stand_in_dataset(local_batch_size, 2)
    example_obs, example_labels = next(dataset)
    example_obs = example_obs[:local_batch_size]

    if FLAGS.use_stable_vae:
        vae = StableVAE.create()
        example_obs = vae.encode(jax.random.PRNGKey(0), example_obs)
        vae_rng = flax.jax_utils.replicate(jax.random.PRNGKey(42))
        vae_encode_pmap = jax.pmap(vae.encode)
        vae_decode = None  # decode not used in this excerpt

    rng = jax.random.PRNGKey(FLAGS.seed)
    rng, param_key, dropout_key = jax.random.split(rng, 3)

    ###################################
    # Creating Model and put on devices.
    ###################################
    FLAGS.model['image_channels'] = example_obs.shape[-1]
    FLAGS.model['image_size'] = example_obs.shape[1]
    dit_args = {
        'patch_size': FLAGS.model['patch_size'],
        'hidden_size': FLAGS.model['hidden_size'],
        'depth': FLAGS.model['depth'],
        'num_heads': FLAGS.model['num_heads'],
        'mlp_ratio': FLAGS.model['mlp_ratio'],
        'class_dropout_prob': FLAGS.model['class_dropout_prob'],
        'num_classes': FLAGS.model['num_classes'],
    }
    model_def = DiT(**dit_args)
    
    example_t = jnp.zeros((local_batch_size,))
    example_label = jnp.zeros((local_batch_size,), dtype=jnp.int32)
    model_rngs = {'params': param_key, 'label_dropout': dropout_key}
    params = model_def.init(model_rngs, example_obs, example_t, example_label)['params']
    tx = optax.adam(learning_rate=FLAGS.model['lr'], b1=FLAGS.model['beta1'], b2=FLAGS.model['beta2'])
    model_ts = TrainState.create(model_def, params, tx=tx)
    model_ts_eps = TrainState.create(model_def, params)
    scheduler = GaussianDiffusion(FLAGS.model['diffusion_timesteps'])
    model = DiffusionTrainer(rng, model_ts, model_ts_eps, FLAGS.model, scheduler)

    model = flax.jax_utils.replicate(model, devices=jax.local_devices())  # expect: JIT502

    valid_images_small, valid_labels_small = next(dataset_valid)
    valid_images_small = valid_images_small[:8]
    valid_images_small = valid_images_small.reshape((device_count, -1, *valid_images_small.shape[1:]))
    valid_labels_small = valid_labels_small[:8]
    valid_labels_small = valid_labels_small.reshape((device_count, -1, *valid_labels_small.shape[1:]))
    if FLAGS.use_stable_vae:
        valid_images_small = vae_encode_pmap(vae_rng, valid_images_small)

    ###################################
    # Train Loop
    ###################################
    
    for i in tqdm.tqdm(range(1, FLAGS.max_steps + 1),
                       smoothing=0.1,
                       dynamic_ncols=True):

        if not FLAGS.debug_overfit or i == 1:
            batch_images, batch_labels = next(dataset)
            batch_images = batch_images.reshape((len(jax.local_devices()), -1, *batch_images.shape[1:])) # [devices, batch//devices, etc..]
            batch_labels = batch_labels.reshape((len(jax.local_devices()), -1, *batch_labels.shape[1:]))
            if FLAGS.use_stable_vae:
                batch_images = vae_encode_pmap(vae_rng, batch_images)  # expect: JIT502

        model, update_info = model.update(batch_images, batch_labels)

        if i % FLAGS.log_interval == 0:
            update_info = jax.tree.map(lambda x: x.mean(), update_info)
            train_metrics = {f'training/{k}': v for k, v in update_info.items()}
    return model


if __name__ == '__main__':
    model = main(None)
    jax.effects_barrier()
    n_dev = len(jax.local_devices())
    assert n_dev == 4

    # observed: line 257 replicates the trainer's one rng onto every device, so each device's
    # update draws the same noise eps (q_sample's records, one per device per step) and the
    # devices' rngs stay equal after every step
    eps = _records["eps"]
    assert len(eps) == n_dev * FLAGS.max_steps, len(eps)
    for step in range(FLAGS.max_steps):
        per_dev = eps[step * n_dev:(step + 1) * n_dev]
        assert all(np.array_equal(per_dev[0], e) for e in per_dev[1:])
    assert not np.array_equal(eps[0], eps[n_dev])  # the key does advance between steps
    rngs = np.asarray(jax.random.key_data(model.rng)) if jnp.issubdtype(model.rng.dtype, jax.dtypes.prng_key) else np.asarray(model.rng)
    assert all(np.array_equal(rngs[0], r) for r in rngs[1:]), rngs

    # observed: line 280 encodes every training batch with the same vae_rng: the VAE's noise is
    # the same on every device and at every step (the first record set is valid_images_small's)
    noise = _records["vae_noise"][1:]  # drop the eager encode of example_obs (1 record, one call)
    assert len(noise) == n_dev * (1 + FLAGS.max_steps), len(noise)
    assert all(np.array_equal(noise[0], z) for z in noise[1:])
    print("devices draw identical eps at each step; vae noise identical across",
          len(noise), "device-steps")
