# source: https://github.com/STomoya/learning-jax/blob/4ef93b6c9a31a3ac8f45d804e7b64b05d17b0b75/train_mnist_gan.py
# observed on jax 0.10.2 CPU: runs clean; step() is jitted once with latent_dim static, the PRNG key is split inside and the fresh key returned each step, BatchNorm stats threaded through TrainState
# gap: other
# added: tensorflow / tensorflow_datasets / PIL imports and the tf.data pipeline (preprocess, get_dataset), save_image and run() left out; __main__ block mirrors run() with random images in [-1, 1] and small sizes (latent_dim 16, layers_per_scale 1, base_channels 8, batch 4, 3 steps)
import pprint
from functools import partial
from typing import Any

import jax
import jax.nn
import jax.numpy as jnp
import numpy as np
import optax
from flax import linen as nn
from flax.training import common_utils, train_state
from jax import random

class TrainState(train_state.TrainState):
    batch_stats: Any

class Discriminator(nn.Module):
    layers_per_scale: int
    base_channels: int
    channel_multiplier: float = 2.

    @nn.compact
    def __call__(self, x, training=True):
        channels = self.base_channels
        for _ in range(self.layers_per_scale): # 28x28
            x = nn.Conv(channels, (3, 3), padding='SAME', use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not training)(x)
            x = jax.nn.leaky_relu(x, negative_slope=0.2)
        channels = int(channels*self.channel_multiplier)
        for i in range(self.layers_per_scale): # 14x14
            strides = (2, 2) if i == 0 else (1, 1)
            x = nn.Conv(channels, (3, 3), padding='SAME', strides=strides, use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not training)(x)
            x = jax.nn.leaky_relu(x, negative_slope=0.2)
        channels = int(channels*self.channel_multiplier)
        for i in range(self.layers_per_scale): # 7x7
            strides = (2, 2) if i == 0 else (1, 1)
            x = nn.Conv(channels, (3, 3), padding='SAME', strides=strides, use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not training)(x)
            x = jax.nn.leaky_relu(x, negative_slope=0.2)
        x = jnp.mean(x, (1, 2))
        x = nn.Dense(1, use_bias=False)(x)
        return x


class Generator(nn.Module):
    layers_per_scale: int
    latent_dim: int
    base_channels: int
    channels_multiplier: float=2.

    @nn.compact
    def __call__(self, x, training=True) -> Any:
        channels = int(self.base_channels * self.channels_multiplier ** 2)
        x = nn.Dense(channels*7*7, use_bias=False)(x)
        x = jnp.reshape(x, (-1, 7, 7, channels))
        x = jax.nn.leaky_relu(x, negative_slope=0.2)
        for _ in range(self.layers_per_scale-1): # 7*7
            x = nn.Conv(channels, (3, 3), padding='SAME', use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not training)(x)
            x = jax.nn.leaky_relu(x, negative_slope=0.2)
        channels = int(channels / self.channels_multiplier)
        x = nn.ConvTranspose(channels, (4, 4), (2, 2), padding='SAME', use_bias=False)(x)
        x = nn.BatchNorm(use_running_average=not training)(x)
        x = jax.nn.leaky_relu(x, negative_slope=0.2)
        for _ in range(self.layers_per_scale-1): # 14*14
            x = nn.Conv(channels, (3, 3), padding='SAME', use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not training)(x)
            x = jax.nn.leaky_relu(x, negative_slope=0.2)
        channels = int(channels / self.channels_multiplier)
        x = nn.ConvTranspose(channels, (4, 4), (2, 2), padding='SAME', use_bias=False)(x)
        x = nn.BatchNorm(use_running_average=not training)(x)
        x = jax.nn.leaky_relu(x, negative_slope=0.2)
        for _ in range(self.layers_per_scale-1): # 28*28
            x = nn.Conv(channels, (3, 3), padding='SAME', use_bias=False)(x)
            x = nn.BatchNorm(use_running_average=not training)(x)
            x = jax.nn.leaky_relu(x, negative_slope=0.2)
        x = nn.Conv(1, (3, 3), padding='SAME', use_bias=False)(x)
        x = jax.nn.tanh(x)
        return x


def get_models(latent_dim, layers_per_scale=2, base_channels=32):
    D = Discriminator(layers_per_scale, base_channels)
    G = Generator(layers_per_scale, latent_dim, base_channels)
    return D, G

def get_optimizer(lr=0.0002, beta1=0.5, beta2=0.999):
    return optax.adam(learning_rate=lr, b1=beta1, b2=beta2)

@jax.vmap
def bce_w_logits(logits, labels):
    return jnp.maximum(logits, 0) - logits * labels + jnp.log(1 + jnp.exp(-jnp.abs(logits)))

def real_loss(logits):
    ones = jnp.ones(logits.shape[0], dtype=logits.dtype)
    loss = bce_w_logits(logits, ones)
    return jnp.mean(loss)

def fake_loss(logits):
    zeros = jnp.zeros(logits.shape[0], dtype=logits.dtype)
    loss = bce_w_logits(logits, zeros)
    return jnp.mean(loss)

def d_loss(real_prob, fake_prob):
    r_loss = real_loss(real_prob)
    f_loss = fake_loss(fake_prob)
    return r_loss + f_loss

def g_loss(fake_prob):
    return real_loss(fake_prob)


def d_step(d_state, g_state, real, z):
    def loss_fn(params):
        fake, new_g_params = g_state.apply_fn(
            {'params': g_state.params, 'batch_stats': g_state.batch_stats}, z, mutable=['batch_stats'])
        real_prob, new_d_params = d_state.apply_fn(
            {'params': params, 'batch_stats': d_state.batch_stats}, real, mutable=['batch_stats'])
        fake_prob, new_d_params = d_state.apply_fn(
            {'params': params, 'batch_stats': new_d_params['batch_stats']}, fake, mutable=['batch_stats'])
        loss = d_loss(real_prob, fake_prob)
        return loss, (new_d_params, new_g_params, fake)
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (_, (new_d_params, new_g_params, fake)), grads = grad_fn(d_state.params)
    d_state = d_state.apply_gradients(grads=grads, batch_stats=new_d_params['batch_stats'])
    g_state = g_state.replace(batch_stats=new_g_params['batch_stats'])
    return d_state, g_state, fake

def g_step(d_state, g_state, z):
    def loss_fn(params):
        fake, new_g_params = g_state.apply_fn(
            {'params': params, 'batch_stats': g_state.batch_stats}, z, mutable=['batch_stats'])
        fake_prob, new_d_params = d_state.apply_fn(
            {'params': d_state.params, 'batch_stats': d_state.batch_stats}, fake, mutable=['batch_stats'])
        loss = g_loss(fake_prob)
        return loss, (new_g_params, new_d_params)
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (_, (new_g_params, new_d_params)), grads = grad_fn(g_state.params)
    g_state = g_state.apply_gradients(grads=grads, batch_stats=new_g_params['batch_stats'])
    d_state = d_state.replace(batch_stats=new_d_params['batch_stats'])
    return g_state, d_state

@partial(jax.jit, static_argnums=4)
def step(d_state, g_state, real, rng, latent_dim):
    z_key, nextrng = random.split(rng)

    z = random.normal(z_key, (real.shape[0], latent_dim))
    d_state, g_state, fake = d_step(d_state, g_state, real, z)
    g_state, d_state = g_step(d_state, g_state, z)

    return d_state, g_state, fake, nextrng


if __name__ == "__main__":
    latent_dim = 16
    rng = random.PRNGKey(0)
    d_key, g_key, rng = random.split(rng, 3)
    d_input, g_input = jnp.ones((1, 28, 28, 1)), jnp.ones((1, latent_dim))
    D, G = get_models(latent_dim, layers_per_scale=1, base_channels=8)
    d_params = D.init(d_key, d_input)
    g_params = G.init(g_key, g_input)
    d_state = TrainState.create(
        apply_fn=D.apply, params=d_params['params'], batch_stats=d_params['batch_stats'],
        tx=get_optimizer())
    g_state = TrainState.create(
        apply_fn=G.apply, params=g_params['params'], batch_stats=g_params['batch_stats'],
        tx=get_optimizer())
    data_rng = np.random.RandomState(0)
    keys = []
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda ev, d, **kw: traces.append(ev) if ev == "/jax/core/compile/jaxpr_trace_duration" else None)
    for _ in range(3):
        images = data_rng.uniform(-1, 1, size=(4, 28, 28, 1)).astype(np.float32)
        d_state, g_state, fake, rng = step(d_state, g_state, images, rng, latent_dim)
        keys.append(tuple(np.asarray(rng).tolist()))
    assert len(set(keys)) == 3
    assert len(traces) == 1, traces  # step traced once for all 3 calls
    print(fake.shape, "steps:", int(d_state.step), int(g_state.step))
