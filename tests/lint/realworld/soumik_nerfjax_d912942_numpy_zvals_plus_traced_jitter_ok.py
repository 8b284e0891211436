# source: https://github.com/soumik12345/nerf.jax/blob/d912942cedc596de6db11fbdeb83512e3f44cc13/nerf/ray_tracing.py
# observed on jax 0.10.2 CPU: runs clean. In render_rays `np` is NumPy, so z_vals is a NumPy
#   array, and the stratified jitter drawn with the key that jax.pmap(train_step) hands in is a
#   tracer (pmap, then jax.grad); `z_vals += tracer` does not ask NumPy for the tracer's value:
#   NumPy defers the in-place add to the tracer (JAX arrays set __array_ufunc__ = None), so
#   z_vals is rebound to a (H, W, 64) tracer of jittered depths and the pmapped step trains
#   (train(num_iterations=1) runs two steps and changes the parameters); the jitted evaluate (no key, NumPy z_vals) runs too.
# gap: exemption-vs-JAX
# added: imports; nerf/model.py's NeRF at 3b2df01 (as written); nerf/train.py's NeRFSystem at
#   234938d, trimmed to __init__, train_step, evaluate, compile and the first part of train
#   (init_tpu and the matplotlib plotting dropped); a __main__ block with a synthetic 25x25
#   scene of three poses (and checks of the step and of evaluate) in place of the tiny_nerf_data.npz download. Changed: the removed
#   jax.device_put_replicated(state, jax.local_devices()) is spelled as a stack of the state
#   along a new device axis.
import jax
import numpy as np
from jax import lax
import jax.numpy as jnp

import optax
import flax.linen as nn
from flax import jax_utils
from flax.training import train_state, common_utils
from typing import Any, Callable, Sequence


# --- nerf/model.py (3b2df01) ---
class NeRF(nn.module.Module):

    num_layers: int = 8
    num_units: int = 256
    skips: Sequence[int] = (4,)
    periodic_functions: Sequence[Callable] = (jnp.sin, jnp.cos)
    out_channels: int = 4
    use_embedding: bool = True
    l_embed: int = 6
    dtype: Any = jnp.float32
    precision: Any = lax.Precision.DEFAULT

    def embed(self, inputs):
        batch_size, _ = inputs.shape
        inputs_freq = jax.vmap(lambda x: inputs * 2.0 ** x)(jnp.arange(self.l_embed))
        functions = jnp.stack([fn(inputs_freq) for fn in self.periodic_functions])
        functions = functions.swapaxes(0, 2).reshape([batch_size, -1])
        functions = jnp.concatenate([inputs, functions], axis=-1)
        return functions

    @nn.compact
    def __call__(self, inputs_points):
        x = self.embed(inputs_points) if self.use_embedding else inputs_points
        for i in range(self.num_layers):
            x = nn.Dense(
                self.num_units,
                dtype=self.dtype,
                precision=self.precision
            )(x)
            x = nn.relu(x)
            if i in self.skips:
                x = jnp.concatenate([x, inputs_points], axis=-1)
        return nn.Dense(
            self.out_channels,
            dtype=self.dtype,
            precision=self.precision
        )(x)


# --- nerf/ray_tracing.py (d912942) ---
def generate_rays(image_height, image_width, focal, pose):
    i, j = np.meshgrid(np.arange(image_width), np.arange(image_height), indexing="xy")
    k = -np.ones_like(i)
    i = (i - image_width * 0.5) / focal
    j = -(j - image_height * 0.5) / focal
    directions = np.stack([i, j, k], axis=-1)
    camera_matrix = pose[:3, :3]
    ray_directions = np.einsum("ijl,kl", directions, camera_matrix)
    ray_origins = np.broadcast_to(pose[:3, -1], ray_directions.shape)
    return np.stack([ray_origins, ray_directions])


def render_rays(
    model_fn,
    rays,
    near_bound=2.0,
    far_bound=6.0,
    num_samples=64,
    batch_size=10000,
    random_number_generator=None,
):
    ray_origins, ray_directions = rays
    z_vals = np.linspace(near_bound, far_bound, num_samples)
    z_shape = ray_origins.shape[:-1] + (num_samples,)
    if random_number_generator is not None:
        z_vals += (
            jax.random.uniform(random_number_generator, z_shape)
            * (far_bound - near_bound)
            / num_samples
        )
    points = (
        ray_origins[..., None, :] + ray_directions[..., None, :] * z_vals[..., :, None]
    )
    raw = lax.map(model_fn, jnp.reshape(points, [-1, batch_size, 3]))
    raw = jnp.reshape(raw, points.shape[:-1] + (4,))
    sigma_a = nn.relu(raw[..., 3])
    rgb = nn.sigmoid(raw[..., :3])
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = jnp.concatenate(
        [dists, np.broadcast_to([1e10], dists[..., :1].shape)], axis=-1
    )
    alpha = 1.0 - jnp.exp(-sigma_a * dists)
    alpha_ = jnp.clip(1.0 - alpha, 1e-10, 1.0)
    trans = jnp.concatenate([jnp.ones_like(alpha_[..., :1]), alpha_[..., :-1]], -1)
    weights = alpha * jnp.cumprod(trans, -1)
    rgb_map = jnp.einsum("...k,...kl", weights, rgb)
    depth_map = jnp.einsum("...k,...k", weights, z_vals)
    acc_map = jnp.einsum("...k->...", weights)
    return rgb_map, depth_map, acc_map


# --- nerf/train.py (234938d), trimmed ---
class NeRFSystem:
    def __init__(self, image_height: int, image_width: int, focal: float) -> None:
        self.image_height = image_height
        self.image_width = image_width
        self.focal = focal
        self.n_devices = jax.local_device_count()
        self.key, self.random_number_generator = jax.random.split(jax.random.PRNGKey(0))
        self.model = NeRF()
        self.parameters = jax.jit(self.model.init)(
            {"params": self.key},
            jnp.ones((image_height * image_width, 3)),
        )["params"]

    @staticmethod
    def train_step(state, batch, random_number_generator):
        inputs, targets = batch

        def loss_fn(params):
            model_fn = lambda x: state.apply_fn({"params": params}, x)
            rgb, _, _ = render_rays(
                model_fn, inputs, random_number_generator=random_number_generator
            )
            return jnp.mean((rgb - targets) ** 2)

        grads = jax.grad(loss_fn)(state.params)
        grads = lax.pmean(grads, axis_name="batch")
        new_state = state.apply_gradients(grads=grads)
        return new_state

    @staticmethod
    @jax.jit
    def evaluate(state, test_image, test_rays):
        model_fn = lambda x: state.apply_fn({"params": state.params}, x)
        rgb, *_ = render_rays(model_fn, test_rays)
        loss = jnp.mean((rgb - test_image) ** 2)
        psnr = -10.0 * jnp.log(loss) / jnp.log(10.0)
        return rgb, psnr

    def compile(self, learning_rate: float, train_poses, test_pose):
        self.psnr_history = []
        self.state = train_state.TrainState.create(
            apply_fn=self.model.apply,
            params=self.parameters,
            tx=optax.adam(learning_rate=learning_rate),
        )
        self.state = jax.tree.map(lambda x: jnp.stack([x] * jax.local_device_count()), self.state)
        self.parallel_train_step = jax.pmap(self.train_step, axis_name="batch")
        self.train_rays = np.stack(
            list(
                map(
                    lambda x: generate_rays(
                        self.image_height, self.image_width, self.focal, x
                    ),
                    train_poses,
                )
            )
        )
        self.test_rays = generate_rays(
            self.image_height, self.image_width, self.focal, test_pose
        )

    def train(self, train_images, test_image, num_iterations: int, plot_interval: int):
        for step in range(num_iterations + 1):
            rng_idx, rng_step = jax.random.split(
                jax.random.fold_in(self.random_number_generator, step)
            )
            sharded_random_number_generators = common_utils.shard_prng_key(rng_step)
            idx = jax.random.randint(
                rng_idx, (self.n_devices,), minval=0, maxval=len(self.train_rays)
            )
            batch = self.train_rays[tuple(idx), ...], train_images[tuple(idx), ...]
            self.state = self.parallel_train_step(
                self.state, batch, sharded_random_number_generators
            )


if __name__ == "__main__":
    # added: a synthetic scene (25x25 images, three poses) in place of tiny_nerf_data.npz
    H = W = 25
    rs = np.random.RandomState(0)
    poses = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1))
    poses[:, 2, 3] = 4.0 + np.arange(3)
    images = rs.rand(3, H, W, 3).astype(np.float32)
    system = NeRFSystem(H, W, focal=30.0)
    system.compile(5e-4, poses[:2], poses[2])
    before = jax.tree.leaves(system.state.params)[0].copy()
    system.train(images[:2], images[2], num_iterations=1, plot_interval=1)
    after = jax.tree.leaves(system.state.params)[0]
    assert not np.allclose(before, after)
    rgb, psnr = system.evaluate(jax_utils.unreplicate(system.state), images[2], system.test_rays)
    assert rgb.shape == (H, W, 3) and np.isfinite(psnr)
