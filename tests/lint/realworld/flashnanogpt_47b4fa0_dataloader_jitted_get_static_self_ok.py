# source: https://github.com/azzeddineCH/flash-nanoGPT/blob/47b4fa0213f492d9d4bd06201dd36debd4bb175d/data_loader.py
#   (an individual's nanoGPT in JAX; data_loader.py at commit 47b4fa0, "fix: stupid jit
#   mistake": the loader's state leaves the jitted code, which takes the key as argument)
# observed on jax 0.10.2 CPU: runs clean. get is jitted with self static (hashed by
#   identity; batch_size, block_size and the data are fixed in __init__ and never change)
#   and takes a key folded from the iteration number, so it compiles once and every call
#   draws a new batch.
#   Changed: batch_size 256 -> 4, block_size 1024 -> 8 and 100 -> 3 iterations in the
#   __main__ block. Added: Batch (utils.py at the same commit) in place of its import; a
#   temporary train.bin (np.arange tokens) in place of data/shakespeare; the checks at the
#   end of the __main__ block.
# gap: exemption-vs-JAX
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

    def __init__(self, dataset_dir, batch_size, block_size, split="train"):
        self.dataset_dir = dataset_dir
        self.batch_size = batch_size
        self.block_size = block_size
        self.split = split
        self.data = self._load(self.dataset_dir, self.split)

    def _load(self, dataset_dir, split):
        file = os.path.join(dataset_dir, f"{split}.bin")
        data = np.memmap(file, dtype=np.uint16, mode='r')
        return jnp.array(data, dtype=jnp.int32)

    @partial(jax.jit, static_argnums=(0,))
    def get(self, rng_key) -> Batch:
        idx = jax.random.randint(rng_key, shape=(self.batch_size,), minval=0, maxval=len(self.data) - self.block_size)

        x_idx = idx.repeat(self.block_size) + jnp.tile(jnp.arange(self.block_size), idx.size)
        y_idx = idx.repeat(self.block_size) + jnp.tile(jnp.arange(1, self.block_size + 1), idx.size)

        x = self.data[x_idx].reshape(-1, self.block_size)
        y = self.data[y_idx].reshape(-1, self.block_size)

        return Batch(inputs=x, labels=y)


if __name__ == '__main__':
    import tempfile

    dataset_dir = tempfile.mkdtemp()  # stand-in for data/shakespeare
    np.arange(1000, dtype=np.uint16).tofile(os.path.join(dataset_dir, "train.bin"))
    rng_key = jax.random.PRNGKey(0)
    loader = DataLoader(
        dataset_dir=dataset_dir,
        batch_size=4,
        block_size=8,
    )

    for i in range(3):
        t0 = time.time()
        loader.get(jax.random.fold_in(rng_key, i))
        t1 = time.time() - t0

        print(f"iter {i} | sampling time {t1}")

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)
    a = loader.get(jax.random.fold_in(rng_key, 10))
    b = loader.get(jax.random.fold_in(rng_key, 11))
    assert not compiles, compiles
    assert not jnp.array_equal(a.inputs, b.inputs)
