# source: https://github.com/ericmjl/dl-workshop/blob/bc0c9383d00ad60c1802fb01e1cf08d36a5ea5ba/notebooks/02-jax-idioms/05-jit.ipynb
#   (Eric Ma's deep learning workshop, PyCon 2021 edition, notebook "JIT compilation":
#   a Gaussian random walk with lax.scan and vmap, then "with JIT compilation")
# observed on jax 0.10.2 CPU: gaussian_random_walk_jit wraps a fresh
#   `partial(grw_draw, num_steps=...)` in jit on every call, so every call (the timed cell,
#   then each %timeit repetition) traces and compiles the scan again: two calls with the
#   same arguments compile twice. The notebook's text puts the small speed-up down to
#   lax.scan already being compiled. Left out: the pure-Python random walk (ten million
#   NumPy draws) and the plotting cells; each %timeit runs its statement once. The
#   __main__ block is added: it counts XLA compilations.
# gap: per-call-recompile
import jax.numpy as np


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * np.where(x > 0, x, alpha * np.exp(x) - alpha)

from time import time

from jax import random

key = random.PRNGKey(44)
x = random.normal(key, (1000000,))
selu(x).block_until_ready()

from jax import jit

selu_jit = jit(selu)

selu_jit(x).block_until_ready()

N_REALIZATIONS = 1_000
N_TIMESTEPS = 10_000

from jax import lax, random

key = random.PRNGKey(44)
keys = random.split(key, N_TIMESTEPS)


def new_draw(prev_val, key):
    """lax.scannable function for drawing a new draw from the GRW."""
    new = prev_val + random.normal(key)
    return new, prev_val


def grw_draw(key, num_steps):
    """One GRW draw over a bunch of steps."""
    keys = random.split(key, num_steps)
    final, draws = lax.scan(new_draw, 0.0, keys)
    return final, draws

from functools import partial

from jax import vmap


def gaussian_random_walk_jax(num_realizations, num_timesteps):
    """Multiple GRW draws."""
    keys = random.split(key, num_realizations)  # tolerate: JIT502
    grw_k_steps = partial(grw_draw, num_steps=num_timesteps)
    final, trajectories = vmap(grw_k_steps)(keys)
    return final, trajectories

from jax import random

key = random.PRNGKey(42)
start = time()
final_jax, trajectories_jax = gaussian_random_walk_jax(
    N_REALIZATIONS, N_TIMESTEPS
)
trajectories_jax.block_until_ready()
end = time()
print(f"{end - start:.2f} seconds")

gaussian_random_walk_jax(N_REALIZATIONS, N_TIMESTEPS)[1].block_until_ready()

from jax import jit


def gaussian_random_walk_jit(num_realizations, num_timesteps):
    keys = random.split(key, num_realizations)  # tolerate: JIT502
    grw_k_steps = jit(partial(grw_draw, num_steps=num_timesteps))  # expect: JIT301
    final, trajectories = vmap(grw_k_steps)(keys)
    return final, trajectories

start = time()
final_jit, trajectories_jit = gaussian_random_walk_jit(
    N_REALIZATIONS, N_TIMESTEPS
)
trajectories_jit.block_until_ready()
end = time()
print(f"{end - start:.2f} seconds")

gaussian_random_walk_jit(N_REALIZATIONS, N_TIMESTEPS)[1].block_until_ready()

if __name__ == "__main__":
    import jax

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)
    # observed: line 83 jits a new partial on every call: each call compiles the scan again
    for _ in range(2):
        gaussian_random_walk_jit(N_REALIZATIONS, N_TIMESTEPS)[1].block_until_ready()
    jit_compiles = len(compiles)
    gaussian_random_walk_jax(N_REALIZATIONS, N_TIMESTEPS)[1].block_until_ready()
    print("compilations: two jit calls", jit_compiles, "then one plain call", len(compiles) - jit_compiles)
    assert jit_compiles >= 2 and len(compiles) == jit_compiles, compiles
