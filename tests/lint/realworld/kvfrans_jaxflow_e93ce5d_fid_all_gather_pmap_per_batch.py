# source: https://github.com/kvfrans/jax-flow/blob/e93ce5d3a5f85191d9320b4638c7c5fc22535a60/train_flow.py
# observed on jax 0.10.2 CPU: the FID block of eval_model pmaps a new
#   `lambda x: jax.lax.all_gather(x, 'i', axis=0)` for every FID batch, so the all-gather is
#   traced and compiled again on every iteration of the loop (4 batches: 4 traces of the
#   lambda, 4 compilations), although its input shape never changes.
# gap: per-call-recompile
# Excerpt: the "FID calculation" block of main's nested eval_model, as written, wrapped in
#   eval_model with the names it reads. Trimmed: the rest of eval_model (validation losses, plots,
#   wandb logging) and of main (dataset, model and training loop); the VAE branch is kept
#   with use_stable_vae=0. Added: XLA_FLAGS=--xla_force_host_platform_device_count=4 at the top
#   (4 CPU devices); stand-ins for FLAGS (a namespace, batch_size 1024 so that the loop runs
#   4096 // 1024 = 4 batches), dataset_valid (random labels), `model.call_model_pmap` (a pmapped
#   velocity field with the same static cfg arguments), get_fid_activations (a pmapped mean
#   pool to a [devices, batch, 1, 1, C] activation), fid_from_stats (a mean/trace distance),
#   truth_fid_stats; eval_model returns fid; the __main__ block, which calls the stand-in get_fid_network twice: each call pmaps a new lambda and compiles it again (line 41, tolerated: the stand-in's, not the author's).
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import types
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp

FLAGS = types.SimpleNamespace(
    fid_stats="stand-in", batch_size=1024,
    model=types.SimpleNamespace(denoise_timesteps=2, cfg_scale=4.0, use_stable_vae=0),
)


@partial(jax.pmap, axis_name='data', static_broadcasted_argnums=(3, 4))
def _call_model_pmap(x, t, labels, cfg=True, cfg_val=1.0):  # stand-in for FlowTrainer.call_model_pmap
    return -x * (1.0 + cfg_val * 0.01) + t[:, None, None, None] + labels[:, None, None, None] * 0.0


model = types.SimpleNamespace(call_model_pmap=_call_model_pmap)


def get_fid_network():  # stand-in for utils.fid.get_fid_network (an Inception pmap)
    return jax.pmap(lambda x: jnp.mean(x, axis=(1, 2))[:, None, None, :])  # tolerate: JIT301


def fid_from_stats(mu1, sigma1, mu2, sigma2):  # stand-in
    return float(np.sum((mu1 - mu2) ** 2) + np.trace(sigma1) + np.trace(sigma2))


def _stand_in_dataset(batch_size, n_dev, seed):
    rs = np.random.RandomState(seed)
    while True:
        yield rs.uniform(-1, 1, (batch_size, 8, 8, 3)).astype(np.float32), rs.randint(0, 10, batch_size)


def eval_model(dataset_valid, valid_images, get_fid_activations, truth_fid_stats):
    fid = None
    # FID calculation.
    if FLAGS.fid_stats is not None:
        activations = []
        valid_images_shape = valid_images.shape
        for fid_it in range(4096 // FLAGS.batch_size):
            _, valid_labels = next(dataset_valid)
            valid_labels = valid_labels.reshape((len(jax.local_devices()), -1, *valid_labels.shape[1:]))

            key = jax.random.PRNGKey(42 + fid_it)
            x = jax.random.normal(key, valid_images_shape)
            delta_t = 1.0 / FLAGS.model.denoise_timesteps
            for ti in range(FLAGS.model.denoise_timesteps):
                t = ti / FLAGS.model.denoise_timesteps # From x_0 (noise) to x_1 (data)
                t_vector = jnp.full((x.shape[0], x.shape[1]), t)
                if FLAGS.model.cfg_scale == -1:
                    v = model.call_model_pmap(x, t_vector, valid_labels, False, 0.0)
                else:
                    v = model.call_model_pmap(x, t_vector, valid_labels, True, FLAGS.model.cfg_scale)
                x = x + v * delta_t
            if FLAGS.model.use_stable_vae:
                x = vae_decode_pmap(x)
            x = jax.image.resize(x, (x.shape[0], x.shape[1], 299, 299, 3), method='bilinear', antialias=False)
            x = 2 * x - 1
            acts = get_fid_activations(x)[..., 0, 0, :] # [devices, batch//devices, 2048]
            acts = jax.pmap(lambda x: jax.lax.all_gather(x, 'i', axis=0), axis_name='i')(acts)[0] # expect: JIT301
            acts = np.array(acts)
            activations.append(acts)
        if jax.process_index() == 0:
            activations = np.concatenate(activations, axis=0)
            activations = activations.reshape((-1, activations.shape[-1]))
            mu1 = np.mean(activations, axis=0)
            sigma1 = np.cov(activations, rowvar=False)
            fid = fid_from_stats(mu1, sigma1, truth_fid_stats['mu'], truth_fid_stats['sigma'])
    return fid


if __name__ == '__main__':
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: traces.append(kw.get("fun_name"))
        if event == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    n_dev = len(jax.local_devices())
    assert n_dev == 4
    dataset_valid = _stand_in_dataset(n_dev, n_dev, 0)
    valid_images = jnp.zeros((n_dev, 1, 8, 8, 3))
    truth_fid_stats = {'mu': np.zeros(3), 'sigma': np.eye(3)}
    fid = eval_model(dataset_valid, valid_images, get_fid_network(), truth_fid_stats)  # warm-up
    assert np.isfinite(fid)
    n_batches = 4096 // FLAGS.batch_size
    get_fid_activations = get_fid_network()
    eval_model(dataset_valid, valid_images, get_fid_activations, truth_fid_stats)  # compiles it
    before = len(traces)
    fid = eval_model(dataset_valid, valid_images, get_fid_activations, truth_fid_stats)
    new = traces[before:]
    # observed: line 80 pmaps a fresh all_gather lambda for every FID batch: with the velocity
    # field and the Inception pmap already compiled, a third evaluation still traces one
    # pmapped function (jax 0.10.2 names pmapped traces _fun) per FID batch, 4 for 4 batches
    assert new.count("_fun") == n_batches, new
    print("pmap traces in one warm FID evaluation:", new.count("_fun"), "for", n_batches, "batches")
