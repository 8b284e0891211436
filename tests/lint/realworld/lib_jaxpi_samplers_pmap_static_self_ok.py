# source: https://github.com/PredictiveIntelligenceLab/jaxpi/blob/9a3735731e389c2f3fa5c6370f52f105af296c9b/jaxpi/samplers.py
# observed on jax 0.10.2 CPU: runs clean. Each sampler's data_generation is pmapped with
#   `self` broadcast as a static argument; it reads only attributes set in the constructor
#   (batch_size, dim, dom, coords, temporal_dom, spatial_coords), and the key that changes
#   between batches is split outside the pmapped method (self.key, subkey = split(self.key))
#   and handed to it per device; TimeSpaceSampler splits its device key before its two draws.
#   Every batch is fresh and the method compiles once per sampler.
# gap: exemption-vs-JAX
# added: `torch.utils.data.Dataset` (torch is not installed) is replaced by `object`; the
#   `__main__` block is added.
from abc import ABC, abstractmethod
from functools import partial

import jax
import jax.numpy as jnp
from jax import random, pmap, local_device_count

Dataset = object  # stand-in for torch.utils.data.Dataset


class BaseSampler(Dataset):
    def __init__(self, batch_size, rng_key=random.PRNGKey(1234)):
        self.batch_size = batch_size
        self.key = rng_key
        self.num_devices = local_device_count()

    def __getitem__(self, index):
        "Generate one batch of data"
        self.key, subkey = random.split(self.key)
        keys = random.split(subkey, self.num_devices)
        batch = self.data_generation(keys)
        return batch

    def data_generation(self, key):
        raise NotImplementedError("Subclasses should implement this!")


class UniformSampler(BaseSampler):
    def __init__(self, dom, batch_size, rng_key=random.PRNGKey(1234)):
        super().__init__(batch_size, rng_key)
        self.dom = dom
        self.dim = dom.shape[0]

    @partial(pmap, static_broadcasted_argnums=(0,))
    def data_generation(self, key):
        "Generates data containing batch_size samples"
        batch = random.uniform(
            key,
            shape=(self.batch_size, self.dim),
            minval=self.dom[:, 0],
            maxval=self.dom[:, 1],
        )

        return batch


class SpaceSampler(BaseSampler):
    def __init__(self, coords, batch_size, rng_key=random.PRNGKey(1234)):
        super().__init__(batch_size, rng_key)
        self.coords = coords

    @partial(pmap, static_broadcasted_argnums=(0,))
    def data_generation(self, key):
        "Generates data containing batch_size samples"
        idx = random.choice(key, self.coords.shape[0], shape=(self.batch_size,))
        batch = self.coords[idx, :]

        return batch


class TimeSpaceSampler(BaseSampler):
    def __init__(
        self, temporal_dom, spatial_coords, batch_size, rng_key=random.PRNGKey(1234)
    ):
        super().__init__(batch_size, rng_key)

        self.temporal_dom = temporal_dom
        self.spatial_coords = spatial_coords

    @partial(pmap, static_broadcasted_argnums=(0,))
    def data_generation(self, key):
        "Generates data containing batch_size samples"
        key1, key2 = random.split(key)

        temporal_batch = random.uniform(
            key1,
            shape=(self.batch_size, 1),
            minval=self.temporal_dom[0],
            maxval=self.temporal_dom[1],
        )

        spatial_idx = random.choice(
            key2, self.spatial_coords.shape[0], shape=(self.batch_size,)
        )
        spatial_batch = self.spatial_coords[spatial_idx, :]
        batch = jnp.concatenate([temporal_batch, spatial_batch], axis=1)

        return batch


if __name__ == "__main__":
    dom = jnp.array([[0.0, 1.0], [-1.0, 1.0]])
    res_sampler = iter(UniformSampler(dom, 128))
    b1, b2 = next(res_sampler), next(res_sampler)
    assert b1.shape == (local_device_count(), 128, 2)
    assert not bool(jnp.allclose(b1, b2))
    assert bool((b1[..., 1] >= -1.0).all() & (b1[..., 1] <= 1.0).all())

    coords = jnp.stack([jnp.zeros(50), jnp.linspace(-1.0, 1.0, 50)], axis=1)
    ics_sampler = iter(SpaceSampler(coords, 64))
    c1, c2 = next(ics_sampler), next(ics_sampler)
    assert c1.shape == (local_device_count(), 64, 2) and not bool(jnp.allclose(c1, c2))

    ts_sampler = iter(TimeSpaceSampler(jnp.array([0.0, 1.0]), coords, 32))
    t1, t2 = next(ts_sampler), next(ts_sampler)
    assert t1.shape == (local_device_count(), 32, 3) and not bool(jnp.allclose(t1, t2))
