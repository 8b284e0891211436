# source: https://github.com/azzeddineCH/flash-nanoGPT/blob/962a525d35f2da1655dc881cc5113be084352408/data_loader.py
#   (an individual's nanoGPT in JAX; data_loader.py before commit cbe916f, "fix: stupid jit
#   mistake", which moves the jit off __next__; 47b4fa0 then fixes it for good)
# observed on jax 0.10.2 CPU: __next__ is jitted with self static, so its body runs only
#   when it is traced, on the first call: `self._current_batch += 1` runs once (the counter
#   stays at 1) and the batch index it passes to _sample_batch is baked into the compiled
#   code, so every later next(loader) returns the first batch again.
#   Changed: batch_size 256 -> 4, block_size 1024 -> 8 and 100 -> 3 iterations in the
#   __main__ block. Added: Batch (utils.py at the same commit) in place of its import; a
#   temporary train.bin (np.arange tokens) in place of data/shakespeare; the check at the
#   end of the __main__ block.
# gap: other
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

    @partial(jax.jit, static_argnums=(0,))
    def __next__(self) -> Batch:
        self._current_batch += 1  # expect: JIT202  # tolerate: JIT201

        def _sample_batch(i):
            key = jax.random.fold_in(self.rng_key, data=i)
            idx = jax.random.randint(key, shape=(self.batch_size,), minval=0, maxval=len(self.data) - self.block_size)

            x_idx = idx.repeat(self.block_size) + jnp.tile(jnp.arange(self.block_size), idx.size)
            y_idx = idx.repeat(self.block_size) + jnp.tile(jnp.arange(1, self.block_size + 1), idx.size)

            x = self.data[x_idx].reshape(-1, self.block_size)
            y = self.data[y_idx].reshape(-1, self.block_size)

            return Batch(inputs=x, labels=y)

        return _sample_batch(self._current_batch)  # tolerate: JIT201


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

    first = next(loader)
    second = next(loader)
    # observed: line 52 updates the batch counter on self only while __next__ is traced: it
    # stays at 1 and every call returns the same batch
    assert loader._current_batch == 1
    assert jnp.array_equal(first.inputs, second.inputs)
