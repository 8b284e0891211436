# source: https://github.com/morgangiraud/leniax/blob/ac966ba500651302784d24a5fdfda39bcce5962a/lenia/perlin.py
# observed on jax 0.10.2 CPU: generate_perlin_noise_2d is jitted with shape, res, nb_noise and
#   interpolant static; perlin (lenia/initializations.py at the same commit, "Jit Perlin
#   noise") passes world_size and res as tuples ("List are non-hashable which breaks jit
#   function"), so the noise for 3 initial Lenia worlds is generated in one compiled call,
#   and a second call with a new key reuses that compilation.
# gap: static-hashability
# added: `import functools` and `functools.partial` for the removed `jax.partial`; the
#   `List` and `Dict` imports of initializations.py; the __main__ block with a Lenia-like
#   world (128x128, R=13, kernel r=1, m=0.15) and the key.
import functools

import jax
import jax.numpy as jnp
from typing import Tuple, List, Dict


def interpolant(t):
    return t * t * t * (t * (t * 6 - 15) + 10)


@functools.partial(jax.jit, static_argnums=(1, 2, 3, 4))
def generate_perlin_noise_2d(
    angles: jnp.ndarray,
    shape: Tuple[int, int],
    res: Tuple[int, int],
    nb_noise: int = 1,
    interpolant=interpolant
) -> jnp.ndarray:
    """Generate a 2D numpy array of perlin noise.

    Args:
        shape: The shape of the generated array (tuple of two ints).
            This must be a multple of res.
        res: The number of periods of noise to generate along each
            axis (tuple of two ints). Note shape must be a multiple of
            res.
        tileable: If the noise should be tileable along each axis
            (tuple of two bools). Defaults to (False, False).
        interpolant: The interpolation function, defaults to
            t*t*t*(t*(t*6 - 15) + 10).

    Returns:
        A numpy array of shape shape with the generated noise.

    Raises:
        ValueError: If shape is not a multiple of res.
    """

    # Gradients
    gradients = jnp.stack([jnp.cos(angles), jnp.sin(angles)], axis=-1)  # [nb_noise, H_res, W_res, 2]
    gradients = jnp.pad(gradients, [(0, 0), (0, 1), (0, 1), (0, 0)], mode='wrap')  # [nb_noise, H_res + 1, W_res + 1, 2]
    d = (shape[0] // res[0], shape[1] // res[1])
    gradients = gradients.repeat(d[0], 1).repeat(d[1], 2)  # [nb_noise, (H_res + 1) * d, (W_res + 1) * d, 2]

    diff = [gradients.shape[1] - shape[0], gradients.shape[2] - shape[1]]
    g00 = gradients[:, :-diff[0], :-diff[1]]  # [nb_noise, shape, 2]
    g10 = gradients[:, diff[0]:, :-diff[1]]  # [nb_noise, shape, 2]
    g01 = gradients[:, :-diff[0], diff[1]:]  # [nb_noise, shape, 2]
    g11 = gradients[:, diff[0]:, diff[1]:]  # [nb_noise, shape, 2]

    # Ramps
    delta = (res[0] / shape[0], res[1] / shape[1])
    grid = jnp.mgrid[0:res[0]:delta[0], 0:res[1]:delta[1]].transpose(1, 2, 0) % 1  # type: ignore
    grid = grid[jnp.newaxis, ...]  # [1, shape, 2]
    grid = grid.repeat(nb_noise, 0)  # [nb_noise, shape, 2]
    n00 = jnp.sum(jnp.stack([grid[:, :, :, 0], grid[:, :, :, 1]], axis=-1) * g00, 3)  # [nb_noise, shape]
    n10 = jnp.sum(jnp.stack([grid[:, :, :, 0] - 1, grid[:, :, :, 1]], axis=-1) * g10, 3)  # [nb_noise, shape]
    n01 = jnp.sum(jnp.stack([grid[:, :, :, 0], grid[:, :, :, 1] - 1], axis=-1) * g01, 3)  # [nb_noise, shape]
    n11 = jnp.sum(jnp.stack([grid[:, :, :, 0] - 1, grid[:, :, :, 1] - 1], axis=-1) * g11, 3)  # [nb_noise, shape]

    # Interpolation
    t = interpolant(grid)
    n0 = n00 * (1 - t[:, :, :, 0]) + t[:, :, :, 0] * n10  # [nb_noise, shape]
    n1 = n01 * (1 - t[:, :, :, 0]) + t[:, :, :, 0] * n11  # [nb_noise, shape]

    return jnp.sqrt(2) * ((1 - t[:, :, :, 1]) * n0 + t[:, :, :, 1] * n1)

def perlin(rng_key, nb_noise: int, world_size: List[int], R: float, kernel_params: Dict):
    """
    Perlin noise initialization which target the mean of the growth function
    """
    kernel_radius = int(R * kernel_params['r'])
    res = [world_size[0] // (kernel_radius * 3), world_size[1] // (kernel_radius * 2)]
    min_mean_bound = kernel_params['m']
    max_mean_bound = min(1, 2 * kernel_params['m'])
    scaling = jnp.array([min_mean_bound + i / nb_noise * (max_mean_bound - min_mean_bound) for i in range(nb_noise)])
    scaling = scaling[:, jnp.newaxis, jnp.newaxis]

    rng_key, subkey = jax.random.split(rng_key)
    angles_shape = [nb_noise] + res
    angles = 2 * jnp.pi * jax.random.uniform(subkey, shape=angles_shape)  # [nb_noise, H_res, W_res]

    # Why tuple here? -> List are non-hashable which breaks jit function
    cells = generate_perlin_noise_2d(angles, tuple(world_size), tuple(res), nb_noise)

    cells -= cells.min(axis=(1, 2), keepdims=True)
    cells /= cells.max(axis=(1, 2), keepdims=True)
    cells *= scaling
    init_cells = cells[:, jnp.newaxis, ...]

    return rng_key, init_cells


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None
    )
    rng_key = jax.random.PRNGKey(0)
    kernel_params = {'r': 1., 'm': 0.15}
    rng_key, init_cells = perlin(rng_key, 3, [128, 128], 13., kernel_params)
    assert init_cells.shape == (3, 1, 128, 128)
    n = len(compiles)
    rng_key, init_cells2 = perlin(rng_key, 3, [128, 128], 13., kernel_params)
    assert len(compiles) == n
    assert not jnp.allclose(init_cells, init_cells2)
    assert float(init_cells.max()) <= 2 * 0.15 + 1e-6
