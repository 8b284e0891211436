# source: https://github.com/mcanacer/Consistency-Models-JAX-FLAX/blob/7f609e392c69e01fb23edd87f0674393f3367806/train.py
# observed on jax 0.10.2 CPU: make_update_fn pmaps the EDM denoiser update once, and the
#   training loop calls it on every batch with a fresh key (key, step_rng = split(key), then one
#   key per device from step_rng): no compilation after the second of 4 steps (the first two
#   calls compile, the second because its inputs are update_fn's own outputs), the sampled noise
#   levels differ from step to step (JAX's key-reuse checker, run on the file, finds no reuse),
#   the loss is finite and the EMA parameters move. Runs clean.
# gap: other
# Kept: ema_update, get_denoiser_fn and make_update_fn of train.py as written, KarrasVESDE
#   (sde_lib.py) and batch_mul (utils.py) from the same commit, and the key handling of main's
#   training loop. Trimmed: config loading, the torchvision/HuggingFace data pipeline, wandb,
#   checkpointing. Stand-ins (added): a one-layer flax model taking (x, t) for the repository's
#   UNet, random images for the loader, and the __main__ block (compile counts through
#   jax.monitoring, the noise levels of each step recorded with jax.debug.callback). Changed:
#   main's `replicate` used jax.device_put_replicated, removed from JAX; it is spelled here with
#   jnp.broadcast_to onto a leading device axis.
import jax
import jax.numpy as jnp
import optax
from flax import linen as nn

import numpy as np


# --- utils.py / sde_lib.py (same commit)
def batch_mul(a, b):
    return jax.vmap(lambda a, b: a * b)(a, b)


class KarrasVESDE(object):

    def __init__(self, sigma_min=0.02, sigma_max=80, sigma_data=0.5, rho=7.0):
        self.sigma_min = sigma_min
        self.sigma_max = sigma_max
        self.sigma_data = sigma_data
        self.rho = rho

    def marginal_prob(self, x, t):
        mean = x
        std = t
        return mean, std

    def get_scalings(self, sigmas):
        c_in = 1 / jnp.sqrt(sigmas ** 2 + self.sigma_data ** 2)
        c_out = self.sigma_data * (sigmas - self.sigma_min) / jnp.sqrt(self.sigma_data ** 2 + sigmas ** 2)
        c_skip = self.sigma_data ** 2 / ((sigmas - self.sigma_min) ** 2 + self.sigma_data ** 2)
        return c_in, c_out, c_skip


# --- train.py
def ema_update(ema_params, new_params, decay):
    return jax.tree_util.tree_map(
        lambda e, p: decay * e + (1.0 - decay) * p,
        ema_params,
        new_params
    )


def get_denoiser_fn(apply_fn, sde):
    def denoiser_fn(params, x, t):
        c_in, c_out, c_skip = sde.get_scalings(t)
        rescaled_t = 1000 * 0.25 * jnp.log(t + 1e-44)
        in_x = batch_mul(c_in, x)
        pred = apply_fn(params, in_x, rescaled_t)

        denoiser = batch_mul(c_skip, x) + batch_mul(c_out, pred)

        return denoiser

    return denoiser_fn


def make_update_fn(*, denoiser_fn, optimizer, sde, ema_decay):
    def update_fn(params, opt_state, images, rng, ema_params):
        def loss_fn(params):
            time_rng, sample_rng = jax.random.split(rng, 2)

            t = -1.2 + jax.random.normal(time_rng, shape=(images.shape[0],)) * 1.2
            t = jnp.exp(t)

            mean, std = sde.marginal_prob(images, t)
            z = jax.random.normal(sample_rng, shape=images.shape)

            noisy_images = mean + batch_mul(std, z)

            denoiser = denoiser_fn(params, noisy_images, t)
            weights = 1. / (t ** 2) + 1. / sde.sigma_data ** 2
            weights = jnp.expand_dims(weights, axis=(1, 2, 3))

            loss = jnp.mean(weights * (denoiser - images) ** 2)

            return loss

        loss, grad = jax.value_and_grad(loss_fn)(params)

        loss, grad = jax.tree_util.tree_map(
            lambda x: jax.lax.pmean(x, axis_name='batch'),
            (loss, grad),
        )

        updates, opt_state = optimizer.update(grad, opt_state, params)
        new_params = optax.apply_updates(params, updates)

        new_ema_params = ema_update(ema_params, new_params, decay=ema_decay)

        return new_params, opt_state, new_ema_params, loss

    return jax.pmap(update_fn, axis_name='batch', donate_argnums=())


# --- stand-in (added) for unet.py's UNet, called as apply(params, x, t)
class TinyUNet(nn.Module):
    @nn.compact
    def __call__(self, x, t):
        temb = nn.Dense(x.shape[-1])(jnp.sin(t[:, None] / 1000.))
        return nn.Conv(x.shape[-1], (3, 3))(x) + temb[:, None, None, :]


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    seen_t = []
    class RecordingUNet(TinyUNet):
        @nn.compact
        def __call__(self, x, t):
            jax.debug.callback(lambda tt: seen_t.append(np.asarray(tt)), t)
            return super().__call__(x, t)

    model = RecordingUNet()
    sde = KarrasVESDE()
    optimizer = optax.chain(optax.radam(learning_rate=1e-3, b1=0.9))

    key = jax.random.PRNGKey(0)
    key, sub_key, other_key = jax.random.split(key, 3)
    batches = [np.asarray(b) for b in jax.random.uniform(other_key, (4, 8, 8, 8, 3)) * 2 - 1]
    params = model.init(sub_key, batches[0], jnp.ones((batches[0].shape[0],)))
    opt_state = optimizer.init(params)

    devices = jax.local_devices()
    replicate = lambda tree: jax.tree_util.tree_map(
        lambda x: jnp.broadcast_to(x, (len(devices),) + jnp.shape(x)), tree)
    unreplicate = lambda tree: jax.tree_util.tree_map(lambda x: x[0], tree)

    ema_params_repl = replicate(params)
    denoiser_fn = get_denoiser_fn(apply_fn=model.apply, sde=sde)
    update_fn = make_update_fn(denoiser_fn=denoiser_fn, optimizer=optimizer, sde=sde, ema_decay=0.9)
    params_repl = replicate(params)
    opt_state_repl = replicate(opt_state)
    num_devices = jax.local_device_count()

    def shard(x):
        n, *s = x.shape
        return np.reshape(x, (num_devices, n // num_devices, *s))

    before = len(compiles)
    seen_t.clear()   # drop the draw made by model.init
    for step, images in enumerate(batches):
        key, step_rng = jax.random.split(key, 2)

        images = jax.tree_util.tree_map(lambda x: shard(np.array(x)), images)
        rng_shard = jax.random.split(step_rng, num_devices)

        params_repl, opt_state_repl, ema_params_repl, loss = update_fn(
            params_repl, opt_state_repl, images, rng_shard, ema_params_repl)
        loss = unreplicate(loss)
        assert np.isfinite(float(loss))
        if step == 1:
            after_two = len(compiles)

    # the pmapped update compiles on the first call and once more on the second, whose inputs are
    # its own outputs (laid out differently from the stand-in replicate's); later steps compile nothing
    assert len(compiles) == after_two, compiles[after_two:]
    # value_and_grad runs the model once per step: four different draws of noise levels
    assert len(seen_t) == 4 * num_devices, len(seen_t)
    assert len({t.tobytes() for t in seen_t}) == len(seen_t)
    moved = jax.tree_util.tree_map(lambda a, b: float(jnp.abs(a - b).max()),
                                   unreplicate(ema_params_repl), params)
    assert max(jax.tree_util.tree_leaves(moved)) > 0
    print("ok: no compile after step 2, fresh noise levels per step, loss", float(loss))
