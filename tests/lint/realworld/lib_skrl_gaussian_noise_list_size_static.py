# source: https://github.com/Toni-SM/skrl/blob/f14c1afe5e45609a6ce21319df97e461b1856c66/skrl/resources/noises/jax/gaussian.py
#   (GaussianNoise and its jitted `_sample`; the Noise base class from
#   skrl/resources/noises/jax/base.py at 57e8a81b, docstrings shortened)
# observed on jax 0.10.2 CPU: `_sample` is jitted with `shape` static, and
#   GaussianNoise.sample passes its `size` straight through although its docstring
#   accepts "tuple or list of int": sample((3, 2)) works, sample([3, 2]) raises
#   ValueError: Non-hashable static arguments are not supported (type list) on the
#   `return _sample(...)` line. Stand-ins: `skrl.config` as a namespace holding the jax
#   backend name and a PRNG key (skrl's config.jax.key). Added: the __main__ block.
# gap: static-hashability
import types
from typing import Optional, Tuple, Union

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

# stand-in for `from skrl import config`
config = types.SimpleNamespace(
    jax=types.SimpleNamespace(backend="jax", key=jax.random.PRNGKey(42))
)


class Noise():
    def __init__(self, device: Optional[Union[str, jax.Device]] = None) -> None:
        """Base class representing a noise"""
        self._jax = config.jax.backend == "jax"

        if device is None:
            self.device = jax.devices()[0]
        else:
            self.device = device if isinstance(device, jax.Device) else jax.devices(device)[0]

    def sample_like(self, tensor: Union[np.ndarray, jax.Array]) -> Union[np.ndarray, jax.Array]:
        """Sample a noise with the same size (shape) as the input tensor"""
        return self.sample(tensor.shape)

    def sample(self, size: Tuple[int]) -> Union[np.ndarray, jax.Array]:
        """Noise sampling method to be implemented by the inheriting classes"""
        raise NotImplementedError("The sampling method (.sample()) is not implemented")


# https://jax.readthedocs.io/en/latest/faq.html#strategy-1-jit-compiled-helper-function
@partial(jax.jit, static_argnames=("shape"))
def _sample(mean, std, key, iterator, shape):
    subkey = jax.random.fold_in(key, iterator)
    return jax.random.normal(subkey, shape) * std + mean


class GaussianNoise(Noise):
    def __init__(self, mean: float, std: float, device: Optional[Union[str, jax.Device]] = None) -> None:
        """Class representing a Gaussian noise"""
        super().__init__(device)

        if self._jax:
            self._i = 0
            self._key = config.jax.key
            self.mean = jnp.array(mean)
            self.std = jnp.array(std)
        else:
            self.mean = np.array(mean)
            self.std = np.array(std)

    def sample(self, size: Tuple[int]) -> Union[np.ndarray, jax.Array]:
        """Sample a Gaussian noise

        :param size: Shape of the sampled tensor
        :type size: tuple or list of int

        :return: Sampled noise
        :rtype: np.ndarray or jax.Array
        """
        if self._jax:
            self._i += 1
            return _sample(self.mean, self.std, self._key, self._i, size)  # expect: JIT302
        return np.random.normal(self.mean, self.std, size)


if __name__ == "__main__":
    noise = GaussianNoise(mean=0, std=1)
    a = noise.sample((3, 2))
    b = noise.sample_like(jnp.zeros((3, 2)))
    assert a.shape == (3, 2) and not bool(jnp.all(a == b))
    noise.sample([3, 2])  # the docstring's "list of int"
