# source: https://github.com/crowsonkb/v-diffusion-jax/blob/f082e75aa0363bb1382ec608819ce81a6404d6e6/sample.py
# observed on jax 0.10.2 CPU: run_all splits `key` into (key, subkey) but hands `key` itself to run() and splits it again on the next batch, so batch i+1's initial noise is drawn from the key batch i's sampling loop started from
# gap: flow-sensitive
# (the same run_all loop is in clip_sample.py at this commit; `subkey` is never used)
# (added: sample_step/jit_sample_step/sample_loop from diffusion/sampling.py and t_to_alpha_sigma, log_snr_to_alpha_sigma,
#  alpha_sigma_to_t, get_ddpm_schedule from diffusion/utils.py at the same commit, with `sampling.`/`utils.` prefixes dropped;
#  einops.repeat(t, '-> n', n=...) spelled jnp.broadcast_to; a tiny stand-in model (get_model/load_params need checkpoints);
#  argparse replaced by a fixed namespace without --init; the PIL image saving replaced by collecting the outputs)
from functools import partial
from types import SimpleNamespace

import jax
import jax.numpy as jnp
from tqdm import tqdm, trange


def log_snr_to_alpha_sigma(log_snr):
    """Returns the scaling factors for the clean image and for the noise, given
    the log SNR for a timestep."""
    return jnp.sqrt(jax.nn.sigmoid(log_snr)), jnp.sqrt(jax.nn.sigmoid(-log_snr))


def t_to_alpha_sigma(t):
    """Returns the scaling factors for the clean image and for the noise, given
    a timestep."""
    return jnp.cos(t * jnp.pi / 2), jnp.sin(t * jnp.pi / 2)


def alpha_sigma_to_t(alpha, sigma):
    """Returns a timestep, given the scaling factors for the clean image and for
    the noise."""
    return jnp.arctan2(sigma, alpha) / jnp.pi * 2


def get_ddpm_schedule(ddpm_t):
    """Returns timesteps for the noise schedule from the DDPM paper."""
    log_snr = -jnp.log(jnp.expm1(1e-4 + 10 * ddpm_t**2))
    alpha, sigma = log_snr_to_alpha_sigma(log_snr)
    return alpha_sigma_to_t(alpha, sigma)


def sample_step(model, params, key, x, t, t_next, eta, extra_args):
    dummy_key = jax.random.PRNGKey(0)
    v = model.apply(params, dummy_key, x, jnp.broadcast_to(t, (x.shape[0],)), extra_args)
    alpha, sigma = t_to_alpha_sigma(t)
    key, subkey = jax.random.split(key)
    pred = x * alpha - v * sigma
    eps = x * sigma + v * alpha
    alpha_next, sigma_next = t_to_alpha_sigma(t_next)
    ddim_sigma = eta * jnp.sqrt(sigma_next**2 / sigma**2) * \
        jnp.sqrt(1 - alpha**2 / alpha_next**2)
    adjusted_sigma = jnp.sqrt(sigma_next**2 - ddim_sigma**2)
    x = pred * alpha_next + eps * adjusted_sigma
    x = x + jax.random.normal(key, x.shape) * ddim_sigma
    return x, pred


jit_sample_step = jax.jit(sample_step, static_argnums=0)


def sample_loop(model, params, key, x, steps, eta, sample_step):
    for i in trange(len(steps)):
        key, subkey = jax.random.split(key)
        if i < len(steps) - 1:
            x, _ = sample_step(model, params, subkey, x, steps[i], steps[i + 1], eta)
        else:
            _, pred = sample_step(model, params, subkey, x, steps[i], steps[i], eta)
    return pred


class TinyModel:  # stand-in for diffusion.get_model(...)
    shape = (3, 4, 4)

    def apply(self, params, key, x, t, extra_args):
        return x * params["w"] * t[:, None, None, None]


def main(args, outputs):
    model = TinyModel()
    params = {"w": jnp.float32(0.5)}

    key = jax.random.PRNGKey(args.seed)

    def run(key, n):
        tqdm.write('Sampling...')
        key, subkey = jax.random.split(key)
        noise = jax.random.normal(subkey, [n, *model.shape])
        key, subkey = jax.random.split(key)
        sample_step = partial(jit_sample_step, extra_args={})
        steps = get_ddpm_schedule(jnp.linspace(1, 0, args.steps + 1)[:-1])
        return sample_loop(model, params, subkey, noise, steps, args.eta, sample_step)

    def run_all(key, n, batch_size):
        for i in trange(0, n, batch_size):
            key, subkey = jax.random.split(key)  # tolerate: JIT502
            cur_batch_size = min(n - i, batch_size)
            outs = run(key, cur_batch_size)  # expect: JIT502
            for j, out in enumerate(outs):
                outputs.append(out)

    try:
        run_all(key, args.n, args.batch_size)
    except KeyboardInterrupt:
        pass


if __name__ == '__main__':
    args = SimpleNamespace(batch_size=2, eta=1., n=6, seed=0, steps=4)
    calls = []
    _sample_loop = sample_loop

    def sample_loop(model, params, key, x, steps, eta, sample_step):
        calls.append((key, x))  # the loop's starting key and the batch's initial noise
        return _sample_loop(model, params, key, x, steps, eta, sample_step)

    outputs = []
    main(args, outputs)
    assert len(outputs) == 6 and len(calls) == 3
    for (loop_key, _), (_, next_noise) in zip(calls, calls[1:]):
        # the next batch's noise is exactly a draw from this batch's sampling-loop key
        redraw = jax.random.normal(loop_key, next_noise.shape)  # tolerate: JIT502
        assert bool(jnp.all(redraw == next_noise))
    print("each batch's initial noise reuses the previous batch's sampling key")
    # observed: line 97 run(key, ...) gets the key that is split again for the next batch; the next batch's noise equals normal(previous loop key)
