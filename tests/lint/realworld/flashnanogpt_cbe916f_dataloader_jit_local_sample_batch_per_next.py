# source: https://github.com/azzeddineCH/flash-nanoGPT/blob/cbe916fe66680c363eefa1a923a66349daa8d7a6/data_loader.py
#   (an individual's nanoGPT in JAX; data_loader.py at commit cbe916f, "fix: stupid jit
#   mistake", which moved the jit from __next__ onto a function defined inside it; the next
#   commit, 47b4fa0, "fix: stupid jit mistake", replaces it with a jitted get(rng_key))
# observed on jax 0.10.2 CPU: every next(loader) defines a new _sample_batch and jits it, so
#   each batch traces and compiles the sampler again (the batches are correct and differ).
#   Changed: batch_size 256 -> 4, block_size 1024 -> 8 and 100 -> 3 iterations in the
#   __main__ block. Added: Batch (utils.py at the same commit) in place of its import; a
#   temporary train.bin (np.arange tokens) in place of data/shakespeare; the compile count
#   at the end of the __main__ block.
# gap: per-call-recompile
import time
from functools import partial

import jax.random
import os
from jax import numpy as jnp
import numpy as np

from flax import struct


@struct.dataclass
class Batch:  # utils.Batch, from the same commit
    inputs: jax.Array
    labels: jax.Array


class DataLoader:

    def __init__(self, rng_key, dataset_dir, batch_size, block_size, split="train"):
        self._current_batch = 0
        self.rng_key = rng_key
        self.dataset_dir = dataset_dir
        self.batch_size = batch_size
        self.block_size = block_size
        self.split = split
        self.data = self._load(self.dataset_dir, self.split)

    def _load(self, dataset_dir, split):
        file = os.path.join(dataset_dir, f"{split}.bin")
        data = np.memmap(file, dtype=np.uint16, mode='r')
        return jnp.array(data, dtype=jnp.int32)

    def __iter__(self):
        self._current_batch = 0
        return self

    def __next__(self) -> Batch:
        self._current_batch += 1

        @jax.jit  # expect: JIT301
        def _sample_batch(i):
            key = jax.random.fold_in(self.rng_key, data=i)
            idx = jax.random.randint(key, shape=(self.batch_size,), minval=0, maxval=len(self.data) - self.block_size)

            x_idx = idx.repeat(self.block_size) + jnp.tile(jnp.arange(self.block_size), idx.size)
            y_idx = idx.repeat(self.block_size) + jnp.tile(jnp.arange(1, self.block_size + 1), idx.size)

            x = self.data[x_idx].reshape(-1, self.block_size)
            y = self.data[y_idx].reshape(-1, self.block_size)

            return Batch(inputs=x, labels=y)

        return _sample_batch(self._current_batch)


if __name__ == '__main__':
    import tempfile

    dataset_dir = tempfile.mkdtemp()  # stand-in for data/shakespeare
    np.arange(1000, dtype=np.uint16).tofile(os.path.join(dataset_dir, "train.bin"))
    loader = DataLoader(
        rng_key=jax.random.PRNGKey(0),
        dataset_dir=dataset_dir,
        batch_size=4,
        block_size=8,
    )

    for i in range(3):
        t0 = time.time()
        next(loader)
        t1 = time.time() - t0

        print(f"iter {i} | sampling time {t1}")

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)
    first = next(loader)
    n_first = len(compiles)
    second = next(loader)
    # observed: line 52 jits a new _sample_batch on every next(loader): the second batch
    # compiles the sampler again
    assert len(compiles) > n_first > 0, (n_first, len(compiles))
    assert not jnp.array_equal(first.inputs, second.inputs)
