# source: https://github.com/domenicocinque/implementations/blob/65471d50cccdebd5db75332c6fb62ff3ae6761db/gan/train.py
#   (with gan/model.py and generate_circle_data of gan/data.py at the same commit; the code of the
#   blog post https://domenicocinque.github.io/posts/gans-with-flax)
# observed on jax 0.10.2 CPU: train_step hands the same disc_key to every one of its cfg.disc_steps
#   discriminator steps (the comment says the key must be re-initialized, but the loop re-splits
#   gen_key instead), so all three steps train on the same generated batch; and fit passes `key`,
#   the key that already drew the training data, to train_step for every batch instead of the
#   rng it gets back, so every batch of an epoch draws the same discriminator and generator
#   latents. JAX's key-reuse checker raises KeyReuseError first at line 140, where train_step splits
#   the consumed key fit handed it (tolerated: the bug is line 199's argument), and, recording every
#   reuse, at each further discriminator_step call with disc_key (reported at line 228, the
#   __main__ wrapper that passes the key on to the jitted step; tolerated as the harness's repeat).
# gap: other
# observed: line 147 the 3 discriminator steps of one train_step get the same latent key, hence the same fake batch
# observed: line 199 every batch of an epoch gets the same key: the latent keys of batches 0 and 1 are equal
# Kept: train.py as written (its __main__, which reads params.yaml with OmegaConf, replaced), model.py
#   and generate_circle_data as written. Changed: get_dataloader (tf.data) replaced by a NumPy
#   shuffle-and-batch stand-in and save_gan_training_gif by a no-op (tensorflow and the animation
#   are not needed to run the training); the params.yaml values are given as a SimpleNamespace with
#   2 epochs and 512 samples instead of 100 epochs and 2000. Added: the __main__ block, which wraps
#   discriminator_step and generator_step to record the latent keys they receive.
from functools import partial

import optax
from jax import random, jit, value_and_grad
import jax.numpy as jnp
import flax.linen as nn
from flax.training import train_state
import jax
import numpy as np
from types import SimpleNamespace


# --- from data.py (generate_circle_data as written); get_dataloader replaced by a NumPy
#     stand-in for its tf.data pipeline (shuffle, batch, drop_remainder=True)
def generate_circle_data(
    key: random.PRNGKey, n_samples: int, r: int = 1, noise: float = 0.05
):
    subkey1, subkey2, subkey3 = random.split(key, 3)
    theta = jax.random.uniform(
        key=subkey1, shape=(n_samples,), minval=0, maxval=2 * jnp.pi
    )
    x_noise = jax.random.normal(key=subkey2, shape=(n_samples,)) * noise
    x = r * jnp.cos(theta) + x_noise
    y_noise = jax.random.normal(key=subkey3, shape=(n_samples,)) * noise
    y = r * jnp.sin(theta) + y_noise
    return jnp.stack([x, y], axis=1)


_loader_rng = np.random.default_rng(0)


def get_dataloader(dataset, batch_size: int):
    data = np.asarray(dataset)[_loader_rng.permutation(len(dataset))]
    for i in range(len(data) // batch_size):
        yield data[i * batch_size:(i + 1) * batch_size]


def save_gan_training_gif(training_data, predictions_list):
    # stand-in for utils.save_gan_training_gif (writes a matplotlib animation)
    pass


# --- model.py as written
class Generator(nn.Module):
    hidden_channels: int
    batch_size: int

    @nn.compact
    def __call__(self, z_rng):
        z = random.normal(z_rng, (self.batch_size, 2))
        z = nn.Dense(self.hidden_channels)(z)
        z = nn.leaky_relu(z)
        z = nn.Dense(self.hidden_channels)(z)
        z = nn.leaky_relu(z)
        x = nn.Dense(2)(z)
        return x


class Discriminator(nn.Module):
    hidden_channels: int

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(self.hidden_channels)(x)
        x = nn.leaky_relu(x)
        x = nn.Dense(self.hidden_channels)(x)
        x = nn.leaky_relu(x)
        x = nn.Dense(2)(x)
        return x


def generator_model(hidden_channels, batch_size):
    return Generator(hidden_channels=hidden_channels, batch_size=batch_size)


def discriminator_model(hidden_channels):
    return Discriminator(hidden_channels=hidden_channels)


@jit
def generator_step(gen_state, disc_state, latent_key):
    def loss_fn(params):
        fake_data = gen_state.apply_fn(params, latent_key)
        fake_logits = disc_state.apply_fn(disc_state.params, fake_data)

        # In the non-saturating loss, we want to maximize the probability that
        # the discriminator classifies the fake data as real
        loss = -jnp.mean(jnp.log(nn.sigmoid(fake_logits)))
        return loss

    loss, grads = value_and_grad(loss_fn)(gen_state.params)
    gen_state = gen_state.apply_gradients(grads=grads)
    return gen_state, loss


@jit
def discriminator_step(gen_state, disc_state, batch, latent_key):
    fake_data = gen_state.apply_fn(gen_state.params, latent_key)

    def loss_fn(params):
        fake_logits = disc_state.apply_fn(params, fake_data)
        real_logits = disc_state.apply_fn(params, batch)

        fake_loss = optax.sigmoid_binary_cross_entropy(
            fake_logits, jnp.zeros_like(fake_logits)
        )
        real_loss = optax.sigmoid_binary_cross_entropy(
            real_logits, jnp.ones_like(real_logits)
        )
        loss = jnp.mean(fake_loss + real_loss)
        return loss

    loss, grads = value_and_grad(loss_fn)(disc_state.params)
    disc_state = disc_state.apply_gradients(grads=grads)
    return disc_state, loss


def train_step(gen_state, disc_state, batch, rng, cfg):
    rng, gen_key, disc_key = random.split(rng, 3)  # tolerate: JIT502

    for _ in range(cfg.disc_steps):
        # We need to re-initialize the key for the latent space,
        # otherwise the generator will always generate the same data
        rng, gen_key = random.split(rng)
        disc_state, disc_loss = discriminator_step(
            gen_state, disc_state, batch, disc_key  # expect: JIT502
        )
    gen_state, gen_loss = generator_step(gen_state, disc_state, gen_key)

    return gen_state, disc_state, gen_loss, disc_loss, rng


def fit(cfg):
    # Init random key
    rng = random.key(0)
    rng, key = random.split(rng)

    # Init data
    training_data = generate_circle_data(key=key, n_samples=cfg.num_samples)

    # Init model
    # We need to split the key for the generator and discriminator
    rng, gen_key, disc_key = random.split(rng, 3)

    # We use partial to pass the hidden_channels and batch_size to the model
    generator = partial(
        generator_model, hidden_channels=cfg.hidden_dims, batch_size=cfg.batch_size
    )
    discriminator = partial(discriminator_model, hidden_channels=cfg.hidden_dims)

    # Init parameters by passing a dummy input input
    generator_params = generator().init(rngs=gen_key, z_rng=gen_key)
    discriminator_params = discriminator().init(
        disc_key, jnp.ones((cfg.batch_size, 2), dtype=jnp.float32)
    )

    # Instantiate training states
    gen_state = train_state.TrainState.create(
        apply_fn=generator().apply,
        params=generator_params,
        tx=optax.adam(learning_rate=cfg.gen_lr),
    )

    disc_state = train_state.TrainState.create(
        apply_fn=discriminator().apply,
        params=discriminator_params,
        tx=optax.adam(learning_rate=cfg.disc_lr),
    )

    # For plotting
    predictions_list = []

    # Training loop
    for epoch in range(cfg.num_epochs):
        train_loader = get_dataloader(training_data, batch_size=cfg.batch_size)
        for batch in train_loader:
            gen_state, disc_state, gen_loss, disc_loss, rng = train_step(
                gen_state, disc_state, batch, key, cfg  # expect: JIT502
            )

        print(
            f"Epoch {epoch} | "
            f"Generator loss: {gen_loss:.2f} | "
            f"Discriminator loss: {disc_loss:.2f}"
        )

        rng, key = random.split(rng)

        # Generate some data for visualization
        fake_data = generator_model(cfg.hidden_dims, cfg.batch_size).apply(
            gen_state.params, key
        )
        predictions_list.append(fake_data)

        rng, key = random.split(rng)

    save_gan_training_gif(training_data, predictions_list)

if __name__ == "__main__":
    cfg = SimpleNamespace(num_epochs=2, num_samples=512, batch_size=128, gen_lr=1e-3,
                          disc_lr=1e-3, disc_steps=3, hidden_dims=32)
    seen = []   # (which step, key data) in call order
    _disc, _gen = discriminator_step, generator_step

    def discriminator_step(gen_state, disc_state, batch, latent_key):
        seen.append(("disc", np.asarray(random.key_data(latent_key))))
        return _disc(gen_state, disc_state, batch, latent_key)  # tolerate: JIT502

    def generator_step(gen_state, disc_state, latent_key):
        seen.append(("gen", np.asarray(random.key_data(latent_key))))
        return _gen(gen_state, disc_state, latent_key)

    fit(cfg)
    per_batch = cfg.disc_steps + 1
    n_batches = cfg.num_samples // cfg.batch_size
    assert len(seen) == cfg.num_epochs * n_batches * per_batch, len(seen)
    first = seen[:per_batch]
    assert [s for s, _ in first] == ["disc"] * cfg.disc_steps + ["gen"]
    assert all(np.array_equal(first[0][1], k) for _, k in first[:cfg.disc_steps])
    print("line 147: the", cfg.disc_steps, "discriminator steps of a train_step share one latent key")
    second = seen[per_batch:2 * per_batch]
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(first, second))
    epoch1 = seen[n_batches * per_batch:(n_batches + 1) * per_batch]
    assert not np.array_equal(first[0][1], epoch1[0][1])
    print("line 199: batches 0 and 1 of an epoch get identical discriminator and generator latent keys")

