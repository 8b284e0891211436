import random

import jax
import jax.numpy as jnp
import numpy as np


def augment(img):
    angle = random.uniform(-15, 15)  # expect: JIT204
    return jnp.rot90(img) if angle > 0 else img


augment_batch = jax.vmap(augment)


@jax.jit
def pick_crop(img):
    rs = np.random.RandomState(0)
    i = rs.randint(0, 4)
    return img[i : i + 24]


@jax.jit
def pick_crop_random(img):
    i = np.random.randint(0, 4)  # expect: JIT204
    return img[i : i + 24]
