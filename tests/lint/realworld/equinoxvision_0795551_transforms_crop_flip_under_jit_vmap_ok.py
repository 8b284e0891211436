# source: https://github.com/moskomule/equinox_vision/blob/0795551981081ca54c472d6e1bc1201965e786d3/equinox_vision/transforms.py
#   (an individual's CIFAR-size vision library for equinox: the data augmentations that its
#   examples/cifar10.py composes and applies per image, with jax.vmap, inside its
#   equinox.filter_jit train_step)
# observed on jax 0.10.2 CPU: runs correctly under jit. The Python `if`s test configuration
#   fixed when each transform is built (`padding > 0`, `isinstance(arr, tuple)`) or static
#   shapes (`img.ndim == 3`); the coin of random_hflip is traced and goes through lax.cond;
#   the crop offsets are traced and go through lax.dynamic_slice; compose splits one key per
#   transform. Under jax.jit(jax.vmap(transform)) with one key per image, every image gets
#   its own crop and flip, the results equal the eager ones image by image, and a second
#   batch with new keys reuses the one compilation.
#   Kept: transforms.py as written. Added: the __main__ block, which builds the transform
#   examples/cifar10.py builds and applies it as data.loader does.
# gap: exemption-vs-JAX
# inspired by deepmind/dm_pix
import functools
from collections.abc import Callable
from typing import TypeAlias

import jax
from jax import numpy as jnp
from jaxtyping import Array

TransformFunc: TypeAlias = Callable[[Array, Array], Array]


def random_hflip(prob: float = 0.5) -> TransformFunc:
    """ Random horizontal flipping.
    """

    def _random_hflip(img: Array,
                      key: Array
                      ) -> Array:
        coin = jax.random.bernoulli(key, prob)
        return jax.lax.cond(coin,
                            lambda x: jnp.flip(x, -1),  # true_fn
                            lambda x: x,  # false_fn
                            img)

    return _random_hflip


def random_crop(size: int,
                padding: int = 0,
                padding_mode: str = 'constant') -> TransformFunc:
    """ Random cropping with optional padding (`padding`, `padding_mode`) for squared images.
    See [jax.numpy.padding]()'s `mode` for `padding_mode` options.
    """

    slice_sizes = (size, size)

    def _random_crop(img: Array,
                     key: Array
                     ) -> Array:
        img_size = img.shape[-1]
        if padding > 0:
            pad = functools.partial(jnp.pad, pad_width=padding, mode=padding_mode)
            img = jax.vmap(pad)(img) if img.ndim == 3 else pad(img)
        start_indices = [jax.random.randint(key, (), 0, img_size + 2 * padding - size + 1) for key in
                         jax.random.split(key)]
        crop = functools.partial(jax.lax.dynamic_slice, start_indices=start_indices, slice_sizes=slice_sizes)
        return jax.vmap(crop)(img) if img.ndim == 3 else crop(img)

    return _random_crop


def normalize(mean: tuple | Array,
              std: tuple | Array
              ) -> TransformFunc:
    """ Normalization of inputs.
    """

    def _ensure_3d(arr):
        if isinstance(arr, tuple):
            arr = jnp.array(arr)
        if arr.ndim == 1:
            return arr[:, None, None]
        else:
            return arr

    mean, std = _ensure_3d(mean), _ensure_3d(std)

    def _normalize(img: Array,
                   key: Array = None
                   ) -> Array:
        return (img - mean) / std

    return _normalize


def compose(funcs: list[TransformFunc]
            ) -> TransformFunc:
    """ Compose several transformations.
    """

    num_funcs = len(funcs)

    def composed(img: Array, key: Array) -> Array:
        keys = jax.random.split(key, num_funcs)
        for func, key in zip(funcs, keys):
            img = func(img, key)
        return img

    return composed


if __name__ == "__main__":
    import numpy as np

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None
    )

    # the transform examples/cifar10.py builds
    transform = compose([normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
                         random_crop(32, 4, 'reflect'),
                         random_hflip()])
    batched = jax.jit(jax.vmap(transform))

    n = 16
    imgs = jax.random.uniform(jax.random.PRNGKey(1), (n, 3, 32, 32))
    keys = jax.random.split(jax.random.PRNGKey(2), n)  # one key per image, as data.loader splits them
    # copies for the replays below (so that no key is drawn from twice)
    keys_eager, keys_coin, keys_base = (jax.random.clone(keys) for _ in range(3))
    out = batched(imgs, keys)
    assert out.shape == (n, 3, 32, 32)
    before = len(compiles)

    # the same as applying the transform eagerly, image by image
    eager = jnp.stack([transform(imgs[i], keys_eager[i]) for i in range(n)])
    np.testing.assert_allclose(np.asarray(out), np.asarray(eager), rtol=1e-6, atol=1e-6)

    # each image got its own crop and flip: the composed per-image keys differ, and the
    # outputs are not one transform applied to all
    flips = []
    for i in range(n):
        k_norm, k_crop, k_flip = jax.random.split(keys_coin[i], 3)
        flips.append(bool(jax.random.bernoulli(k_flip, 0.5)))
    assert any(flips) and not all(flips), flips
    # a flipped image equals the flip of the unflipped pipeline's output
    no_flip = compose([normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
                       random_crop(32, 4, 'reflect'),
                       lambda x, key: x])
    for i in range(n):
        base = no_flip(imgs[i], keys_base[i])
        want = jnp.flip(base, -1) if flips[i] else base
        np.testing.assert_allclose(np.asarray(out[i]), np.asarray(want), rtol=1e-6, atol=1e-6)

    # a new batch with new keys: no new compilation of the jitted transform
    keys2 = jax.random.split(jax.random.PRNGKey(3), n)
    before = len(compiles)
    out2 = batched(imgs, keys2)
    assert len(compiles) == before, compiles[before:]
    assert not np.allclose(np.asarray(out2), np.asarray(out))
    print("ok: per-image crops and flips under jit(vmap), one compilation")
