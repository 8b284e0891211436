import random
import time

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def shuffled(x):
    perm = np.random.permutation(x.shape[0])  # expect: JIT204
    return x[perm]


@jax.jit
def timed(x):
    t0 = time.perf_counter()  # expect: JIT204
    return x * 2, t0


@jax.jit
def pick(xs):
    i = random.choice(range(len(xs)))  # expect: JIT204
    return xs[i]
