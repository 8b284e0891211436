import logging
import time

import jax
import jax.numpy as jnp
import numpy as np

log = logging.getLogger(__name__)


@jax.jit
def step(w, x):
    return w * 0.99 + x.mean()


def main(steps=1000, log_every=100):
    w = jnp.zeros(())
    rng = np.random.default_rng(0)
    start = time.time()
    for i in range(steps):
        x = jnp.asarray(rng.normal(size=(32,)))
        w = step(w, x)
        if i % log_every == 0:
            log.info("step %d w=%.3f elapsed=%.1fs", i, float(w), time.time() - start)
            print(i, w)
    return w
