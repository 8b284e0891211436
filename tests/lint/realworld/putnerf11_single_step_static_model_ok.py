# source: https://github.com/codestella/putting-nerf-on-a-diet/pull/11 (commit ce52049,
#   "fix invalid jax type error in trainer by setting static_argnums": src/step_utils.py,
#   src/models.py and the inner loop of src/trainer.py)
# observed on jax 0.10.2 CPU: with flax 0.12.8, `single_step = jit(single_step_wojit,
#   static_argnums=[6, 7])` keeps `N_samples` (a length for `np.linspace` and a shape for
#   `random.uniform`) and the linen `model` static, and the inner loop runs clean, compiling
#   `single_step` once. Before the fix `@jit` traced both. `jax.tree_multimap` is now
#   `jax.tree.map`, and `np.broadcast_to([1e10], ...)` (jnp no longer takes a list there)
#   `np.broadcast_to(np.asarray([1e10]), ...)`; imports, the `Model` of src/models.py, the rays, image and bounds
#   (random stand-ins for the loaded scene) and the `__main__` driver are added; the driver
#   follows `trainer.update_network_weights`.
# gap: static-hashability
import jax
import jax.numpy as np
from jax import jit, random
import flax.linen as nn


class Model(nn.Module):
    width = 256
    depth = 6

    @nn.compact
    def __call__(self, coords):
        sh = coords.shape
        coords = np.reshape(coords, [-1 ,3])

        # positional encoding
        x = np.concatenate([np.concatenate([
            np.sin(coords*(2**i)), np.cos(coords*(2**i))
        ], axis=-1) for i in np.linspace(0, 8, 20)], axis=-1)

        for idx in range(self.depth - 1):
            x = nn.Dense(self.width, name=f"fc{idx}")(x)
            x = nn.relu(x)

        out = nn.Dense(4, name="fc_last")(x)
        out = np.reshape(out, list(sh[:-1]) + [4])
        return out


def render_rays(rnd_input, model, params,
                bvals, rays, near, far,
                N_samples, rand=False, allret=False):
    rays_o, rays_d = rays

    # Compute 3D query points
    z_vals = np.linspace(near, far, N_samples)
    if rand:
        z_vals += random.uniform(rnd_input, shape=list(rays_o.shape[:-1]) + [N_samples]) * (far - near) / N_samples
    # r(t) = o + t*d
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]

    # Run network
    pts_flat = np.reshape(pts, [-1, 3])
    if bvals is not None:
        pts_flat = np.concatenate([np.sin(pts_flat @ bvals.T),
                                   np.cos(pts_flat @ bvals.T)], axis=-1)

    raw = model.apply(params, pts_flat)
    raw = np.reshape(raw, list(pts.shape[:-1]) + [4])

    # Compute opacities and colors
    rgb, sigma_a = raw[..., :3], raw[..., 3]
    sigma_a = jax.nn.relu(sigma_a)
    rgb = jax.nn.sigmoid(rgb)

    # Do volume rendering
    dists = np.concatenate([z_vals[..., 1:] - z_vals[..., :-1], np.broadcast_to(np.asarray([1e10]), z_vals[..., :1].shape)], -1)
    alpha = 1. - np.exp(-sigma_a * dists)
    trans = np.minimum(1., 1. - alpha + 1e-10)
    trans = np.concatenate([np.ones_like(trans[..., :1]), trans[..., :-1]], -1)
    weights = alpha * np.cumprod(trans, -1)

    rgb_map = np.sum(weights[..., None] * rgb, -2)
    acc_map = np.sum(weights, -1)

    if not allret:
        return rgb_map

    depth_map = np.sum(weights * z_vals, -1)

    return rgb_map, depth_map, acc_map


def single_step_wojit(rng, image, rays, params, bds, inner_step_size, N_samples, model):
    def sgd(param, update):
        return param - inner_step_size * update

    rng, rng_inputs = jax.random.split(rng)

    def loss_model(params):
        g = render_rays(rng_inputs, model, params, None, rays, bds[0], bds[1], N_samples, rand=True)
        return mse_fn(g, image)

    model_loss, grad = jax.value_and_grad(loss_model)(params)
    new_params = jax.tree.map(sgd, params, grad)
    return rng, new_params, model_loss


# nn.linen.Module is not jittable
single_step = jit(single_step_wojit, static_argnums=[6, 7])
mse_fn = jit(lambda x, y: np.mean((x - y)**2))


if __name__ == "__main__":
    model = Model()
    key1, key2 = random.split(jax.random.PRNGKey(0))
    dummy_x = random.normal(key1, (1, 3))
    params = model.init(key2, dummy_x)

    data_key = jax.random.PRNGKey(1)
    k_img, k_rays = random.split(data_key)
    images = random.uniform(k_img, (64, 3))
    rays = random.normal(k_rays, (2, 64, 3))
    bds = np.array([2.0, 6.0])

    rng = jax.random.PRNGKey(2)
    for _ in range(3):
        rng, rng_input = random.split(rng)
        idx = random.randint(rng_input, shape=(16,), minval=0, maxval=images.shape[0])
        image_sub = images[idx, :]
        rays_sub = rays[:, idx, :]
        rng, params, loss = single_step(rng, image_sub, rays_sub, params, bds, 0.1, 8, model)
    assert np.isfinite(loss)
    assert single_step._cache_size() == 1
