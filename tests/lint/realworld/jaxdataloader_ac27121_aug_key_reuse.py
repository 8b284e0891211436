# source: https://github.com/carrycooldude/JAX-Dataloader/blob/ac27121b288d58fa889546ff55c6debc096eaebc/jax_dataloader/transform/augmentation.py
# observed on jax 0.10.2 CPU: see the per-line observed comments; the __main__ block checks each one
# gap: flow-sensitive
# observed: line 67 top and left crop offsets drawn from the same key are always equal (crop[0,0] == top*W+left with top == left for 20/20 keys)
# observed: line 68 jitted random_crop with size passed as a traced tuple raises TypeError here (traced slice_sizes in dynamic_slice)
# observed: line 98 jitted cutout raises IndexError here (slice bounds y1:y2 are traced)
# observed: line 113 with jax_debug_key_reuse the key already consumed by random.bernoulli on the `if` line raises KeyReuseError here; without the checker the flip is applied 100% of the time once selected
# observed: line 115 with jax_debug_key_reuse the consumed key raises KeyReuseError here
# observed: line 117 with jax_debug_key_reuse (eager body swapped in, the jitted one cannot trace) the consumed key raises KeyReuseError through this call
# observed: line 119 with jax_debug_key_reuse the consumed key raises KeyReuseError here
# observed: line 121 with jax_debug_key_reuse the consumed key raises KeyReuseError here
# observed: line 123 with jax_debug_key_reuse (eager body swapped in, the jitted one cannot trace) the consumed key raises KeyReuseError through this call
# (added: the __main__ block with small inputs; the module code is unchanged; random_rotation's
#  jax.image.transform does not exist in any jax release, it is left as the user wrote it)
import jax
import jax.numpy as jnp
import numpy as np
from typing import Optional, Tuple, Union, List
import random
from jax import random
from functools import partial

@jax.jit
def random_flip(x: jnp.ndarray, key: jnp.ndarray, p: float = 0.5) -> jnp.ndarray:
    """Randomly flip the image horizontally"""
    should_flip = random.bernoulli(key, p)
    return jnp.where(should_flip, jnp.fliplr(x), x)

@jax.jit
def random_rotation(x: jnp.ndarray, key: jnp.ndarray, max_angle: float = 15.0) -> jnp.ndarray:
    """Randomly rotate the image"""
    # For non-image data, just return the input
    if len(x.shape) < 2:
        return x
        
    angle = random.uniform(key, minval=-max_angle, maxval=max_angle) * jnp.pi / 180.0
    cos_theta = jnp.cos(angle)
    sin_theta = jnp.sin(angle)
    
    # For non-image data (e.g. feature vectors), apply a simple rotation
    if len(x.shape) == 2:
        rotation_matrix = jnp.array([[cos_theta, -sin_theta],
                                   [sin_theta, cos_theta]])
        # Reshape to apply rotation to pairs of features
        n_pairs = x.shape[1] // 2
        x_reshaped = x[:, :2*n_pairs].reshape(-1, n_pairs, 2)
        x_rotated = jnp.einsum('ijk,kl->ijl', x_reshaped, rotation_matrix)
        x_final = x_rotated.reshape(x.shape[0], -1)
        # Keep any remaining features unchanged
        if x.shape[1] > 2*n_pairs:
            x_final = jnp.concatenate([x_final, x[:, 2*n_pairs:]], axis=1)
        return x_final
    
    # For image data (3+ dimensions), use affine transform
    else:
        rotation_matrix = jnp.array([[cos_theta, -sin_theta, 0],
                                   [sin_theta, cos_theta, 0],
                                   [0, 0, 1]])
        return jax.image.transform(x, rotation_matrix, mode='nearest')

@jax.jit
def random_crop(x: jnp.ndarray, key: jnp.ndarray, size: tuple) -> jnp.ndarray:
    """Randomly crop the image"""
    h, w = x.shape[:2]
    h_new, w_new = size
    top = random.randint(key, (), 0, h - h_new)
    left = random.randint(key, (), 0, w - w_new)  # expect: JIT502
    return jax.lax.dynamic_slice(x, (top, left) + (0,) * (x.ndim - 2), size + x.shape[2:])  # expect: JIT404

@jax.jit
def color_jitter(x: jnp.ndarray, key: jnp.ndarray, brightness: float = 0.2,
                contrast: float = 0.2, saturation: float = 0.2, hue: float = 0.1) -> jnp.ndarray:
    """Apply color jittering"""
    keys = random.split(key, 4)
    x = x + random.uniform(keys[0], x.shape, minval=-brightness, maxval=brightness)
    x = x * random.uniform(keys[1], (), minval=1-contrast, maxval=1+contrast)
    x = jnp.clip(x, 0, 1)
    return x

@jax.jit
def gaussian_noise(x: jnp.ndarray, key: jnp.ndarray, std: float = 0.1) -> jnp.ndarray:
    """Add Gaussian noise"""
    noise = random.normal(key, x.shape) * std
    return jnp.clip(x + noise, 0, 1)

@jax.jit
def cutout(x: jnp.ndarray, key: jnp.ndarray, size: int = 16) -> jnp.ndarray:
    """Apply cutout augmentation"""
    h, w = x.shape[:2]
    keys = random.split(key, 2)
    center_y = random.randint(keys[0], (), 0, h)
    center_x = random.randint(keys[1], (), 0, w)
    y1 = jnp.clip(center_y - size // 2, 0, h)
    y2 = jnp.clip(center_y + size // 2, 0, h)
    x1 = jnp.clip(center_x - size // 2, 0, w)
    x2 = jnp.clip(center_x + size // 2, 0, w)
    mask = jnp.ones_like(x)
    mask = mask.at[y1:y2, x1:x2].set(0)  # expect: JIT404
    return x * mask

class JAXDataAugmentation:
    def __init__(self, augmentations=None, seed=42):
        self.augmentations = augmentations or ['random_flip', 'random_rotation', 'color_jitter']
        self.rng = jax.random.PRNGKey(seed)
        
    def apply(self, x: jnp.ndarray) -> jnp.ndarray:
        """Apply random augmentations"""
        self.rng, *subkeys = random.split(self.rng, len(self.augmentations) + 1)
        
        for aug, key in zip(self.augmentations, subkeys):
            if random.bernoulli(key):  # 50% chance to apply each augmentation
                if aug == 'random_flip':
                    x = random_flip(x, key)  # expect: JIT502
                elif aug == 'random_rotation':
                    x = random_rotation(x, key)  # expect: JIT502
                elif aug == 'random_crop':
                    x = random_crop(x, key, (x.shape[0]//2, x.shape[1]//2))  # expect: JIT502
                elif aug == 'color_jitter':
                    x = color_jitter(x, key)  # expect: JIT502
                elif aug == 'gaussian_noise':
                    x = gaussian_noise(x, key)  # expect: JIT502
                elif aug == 'cutout':
                    x = cutout(x, key)  # expect: JIT502
        return x 


if __name__ == "__main__":
    import sys
    import traceback

    def line_of(exc):
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == __file__]
        return frames[-1].lineno

    src = open(__file__).read().splitlines()

    def find(fragment):
        return next(i + 1 for i, s in enumerate(src) if fragment in s and "expect" in s)

    H = W = 8
    img = jnp.arange(H * W, dtype=jnp.float32).reshape(H, W, 1)

    # random_crop: top and left come from the same key -> always equal
    crop_eager = random_crop.__wrapped__
    same = 0
    for s in range(20):
        c = crop_eager(img, jax.random.PRNGKey(s), (4, 4))
        v = int(c[0, 0, 0])
        same += (v // W) == (v % W)
    print("top == left for", same, "of 20 keys")
    assert same == 20

    # random_crop under jit: traced size
    try:
        random_crop(img, jax.random.PRNGKey(0), (4, 4))
        raise SystemExit("random_crop did not fail")
    except Exception as e:
        print("random_crop:", type(e).__name__, "line", line_of(e))
        assert line_of(e) == find("return jax.lax.dynamic_slice")

    # cutout under jit: traced slice bounds
    try:
        cutout(jnp.ones((32, 32, 3)), jax.random.PRNGKey(0))
        raise SystemExit("cutout did not fail")
    except Exception as e:
        print("cutout:", type(e).__name__, "line", line_of(e))
        assert line_of(e) == find("mask = mask.at[y1:y2, x1:x2].set(0)")

    # random_flip after the coin flip on the same key: flip always happens once selected
    x = jnp.arange(6.0).reshape(2, 3)
    flipped = chosen = 0
    for s in range(200):
        k = jax.random.PRNGKey(s)
        if random.bernoulli(k):
            chosen += 1
            flipped += bool(jnp.all(random_flip(x, k) == jnp.fliplr(x)))  # tolerate: JIT502
    print("random_flip applied", flipped, "of", chosen, "times it was selected")
    assert chosen > 0 and flipped == chosen

    # key reuse checker on every branch of apply()
    jax.config.update("jax_debug_key_reuse", True)
    expected = {
        "random_flip": find("x = random_flip(x, key)"),
        "random_rotation": find("x = random_rotation(x, key)"),
        "random_crop": find("x = random_crop(x, key,"),
        "color_jitter": find("x = color_jitter(x, key)"),
        "gaussian_noise": find("x = gaussian_noise(x, key)"),
        "cutout": find("x = cutout(x, key)"),
    }
    # random_crop / cutout cannot be traced at all (see above), so their eager bodies are
    # swapped in to let the checker see the key they are handed
    g = globals()
    for name, want in expected.items():
        if name in ("random_crop", "cutout"):
            g[name] = g[name].__wrapped__
        aug = JAXDataAugmentation([name])
        aug.rng = jax.random.key(0)  # typed key so the reuse checker can track it
        shape = (16, 16) if name == "random_rotation" else (16, 16, 3)
        hit = None
        for _ in range(50):
            try:
                aug.apply(jnp.ones(shape))
            except jax.errors.KeyReuseError as e:
                hit = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
                break
        print(name, "KeyReuseError through lines", hit)
        assert hit is not None and want in hit, (name, hit, want)
    print("ok")
    sys.exit(0)
