# source: https://github.com/fattorib/InfoGAN-Jax/blob/d499471b5017bfbe7572e1589ead3471e8edd054/utils/create_latents_with_codes.py (the codes' key reuse was fixed by commit ea9731a46453730f1e97bde5314e02b64a451519 "Updating latent creation, splitting random state"); train_epoch and the epoch loop of main() from https://github.com/fattorib/InfoGAN-Jax/blob/d499471b5017bfbe7572e1589ead3471e8edd054/main.py (the epoch loop is unchanged at HEAD)
# observed on jax 0.10.2 CPU: runs; see the `# observed:` lines (the two continuous codes are equal column for column, and every epoch replays the same latents)
# gap: other
# (added: imports; `cfg` as a small namespace holding the values of conf/config_MNIST.yaml with 2 epochs; a stand-in for the jitted train_step of main.py that only draws the latents the way loss_disc does and keeps them for the check (the models, losses and wandb logging are left out); a list of 3 fake batches as train_loader; the __main__ block)
# observed: line 33 the second continuous code equals the first one for every sample (z[:, 62] == z[:, 63]), and the first code reuses the key of the noise: z[0, 0] == sqrt(2)*erfinv(z[0, 62])
# observed: line 38 the categorical code reuses rng_key: the Gumbel noise of sample 0, category 0 is exactly -log(-log((c+1)/2)) of sample 0's continuous code
# observed: line 103 epoch 1 draws exactly the latents of epoch 0 (rng is never advanced between epochs)
import types

import numpy as np
import jax
import jax.numpy as jnp
from jax import random


def create_latents_with_codes(num_noise, num_cts, num_cat, rng_key, num_samples):
    """Create a latent variable to feed into the generator

    Args:
        num_noise (int): number of 'noise' variables to use. For InfoGAN MNIST example, defaults to 62
        num_cts (int): number of continuous 'codes' to use. For InfoGAN MNIST example, defaults to 2
        num_cat (int): number of category 'codes' to use. For InfoGAN MNIST example, defaults to 10 categories
        rnk_key (*): jax prng key
        num_samples (int): number of latent samples to generate

    """

    # Noise
    z = jax.random.normal(rng_key, shape=(num_samples, num_noise))

    # Continuous code
    for _ in range(num_cts):
        c = jax.random.uniform(key=rng_key, shape=(num_samples, 1), minval=-1, maxval=1)  # expect: JIT502
        z = jnp.concatenate([z, c], axis=1)

    # Categorical code
    logit_probs = [1 / num_cat for _ in range(num_cat)]
    c_idx = jax.random.categorical(  # expect: JIT502
        key=rng_key, logits=jnp.array(logit_probs), shape=(num_samples,)
    )

    c = jax.nn.one_hot(c_idx, num_classes=num_cat)

    z = jnp.concatenate([z, c], axis=1)

    return z


cfg = types.SimpleNamespace(
    training=types.SimpleNamespace(epochs=2, batch_size=4),
    model=types.SimpleNamespace(num_noise=62, num_cts_codes=2, num_categories=10),
)

drawn_latents = []  # stand-in bookkeeping for the check in __main__


@jax.jit
def _draw(rng):
    return create_latents_with_codes(
        cfg.model.num_noise,
        cfg.model.num_cts_codes,
        cfg.model.num_categories,
        rng,
        num_samples=4,
    )


def train_step(state_d, state_g, state_q, batch, rng):
    # stand-in: the real train_step draws z = create_latents_with_codes(..., rng, ...) in loss_disc
    drawn_latents.append(np.asarray(_draw(rng)))
    return state_d, state_g, state_q, {"Discriminator Loss": 0.0, "Generator Loss": 0.0}


def train_epoch(state_d, state_g, state_q, rng, dataloader):
    """Train for a single epoch."""
    batch_metrics = []

    for batch, _ in dataloader:
        new_rng, subrng = random.split(rng)
        state_d, state_g, state_q, metrics = train_step(
            state_d,
            state_g,
            state_q,
            batch,
            subrng,
        )
        batch_metrics.append(metrics)
        rng = new_rng

    batch_metrics_np = jax.device_get(batch_metrics)
    epoch_metrics_np = {
        k: np.mean([metrics[k] for metrics in batch_metrics_np])
        for k in batch_metrics_np[0]
    }
    return state_d, state_g, state_q, epoch_metrics_np


def main(train_loader, state_d=None, state_g=None, state_q=None):
    rng = jax.random.PRNGKey(0)
    rng, init_rng = jax.random.split(rng)

    for epoch in range(0, cfg.training.epochs):
        state_d, state_g, state_q, epoch_metrics_np = train_epoch(  # expect: JIT502
            state_d, state_g, state_q, rng, train_loader
        )

        print(
            f"train epoch: {epoch}, discriminator loss: {epoch_metrics_np['Discriminator Loss']:.4f}, generator loss: {epoch_metrics_np['Generator Loss']:.4f}"
        )


if __name__ == "__main__":
    from scipy.special import erfinv

    key = jax.random.PRNGKey(3)
    z = np.asarray(create_latents_with_codes(62, 2, 10, key, 16))
    # line 33: both continuous codes are the same column
    assert np.array_equal(z[:, 62], z[:, 63]), "codes differ"
    u0 = np.asarray(jax.random.uniform(key, (16, 1), minval=-1, maxval=1))[0, 0]  # tolerate: JIT502
    assert np.isclose(z[0, 62], u0)
    n00 = np.asarray(jax.random.normal(key, (16, 62)))[0, 0]  # tolerate: JIT502
    assert np.isclose(z[0, 0], n00)
    # the first code determines the first noise entry (both come from the same bits)
    assert np.isclose(z[0, 0], np.sqrt(2) * erfinv(np.float64(z[0, 62])), atol=1e-3)
    # line 38: the categorical Gumbel noise is a function of the continuous code
    g = np.asarray(jax.random.gumbel(key, (16, 10)))  # tolerate: JIT502
    assert np.isclose(g[0, 0], -np.log(-np.log((z[0, 62] + 1) / 2)), atol=1e-4)

    # line 103: every epoch replays the latents of the first epoch
    loader = [(np.zeros((4, 28, 28, 1), np.float32), None) for _ in range(3)]
    main(loader)
    per_epoch = len(loader)
    assert len(drawn_latents) == 2 * per_epoch
    for a, b in zip(drawn_latents[:per_epoch], drawn_latents[per_epoch:]):
        assert np.array_equal(a, b)
    print("codes equal, categorical tied to codes, epochs replay the same latents: OK")
