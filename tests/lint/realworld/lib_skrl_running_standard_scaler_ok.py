# source: https://github.com/Toni-SM/skrl/blob/db4c3d2bd5ea16becb80b05bbe9f8ad02dc79286/skrl/resources/preprocessors/jax/running_standard_scaler.py
#   (skrl's RunningStandardScaler for the jax backend and its jitted helpers; the long
#   docstrings of __init__, _get_space_size, _parallel_variance and __call__ shortened)
# observed on jax 0.10.2 CPU: runs clean. The jitted `_parallel_variance` branches on
#   `array.ndim` and takes `input_count` from `array.shape`, both static under jit; the
#   float hyperparameters (clip_threshold, epsilon) go into the jitted functions as traced
#   scalars, and the running statistics live on the Python object, reassigned from the jitted
#   results outside the trace. After five training batches of (8, 2) and of (4, 8, 2) the
#   running mean and variance match those of the class's own NumPy path (`_jax = False`),
#   the count is 1 + 88 rows, the standardized and inverse outputs round-trip, and loading a
#   state_dict copies the arrays through the jitted `_copyto`. Stand-ins: `skrl.config` as a namespace holding
#   the jax backend name, and `gym`/`gymnasium` as namespaces with empty Space classes (not
#   installed here; only int and tuple sizes are used). Added: the __main__ block.
# gap: exemption-vs-JAX
from typing import Mapping, Optional, Tuple, Union

import types

import jax
import jax.numpy as jnp
import numpy as np

# stand-ins for `import gym`, `import gymnasium` and `from skrl import config`
_space = type("Space", (), {})
gym = gymnasium = types.SimpleNamespace(
    Space=_space,
    spaces=types.SimpleNamespace(
        Discrete=type("Discrete", (_space,), {}),
        Box=type("Box", (_space,), {}),
        Dict=type("Dict", (_space,), {}),
    ),
)
config = types.SimpleNamespace(jax=types.SimpleNamespace(backend="jax"))


# https://jax.readthedocs.io/en/latest/faq.html#strategy-1-jit-compiled-helper-function
@jax.jit
def _copyto(dst, src):
    """NumPy function copyto not yet implemented
    """
    return dst.at[:].set(src)


@jax.jit
def _parallel_variance(running_mean: jax.Array,
                       running_variance: jax.Array,
                       current_count: jax.Array,
                       array: jax.Array) -> Tuple[jax.Array, jax.Array, jax.Array]:  # yapf: disable
    # ddof = 1: https://github.com/pytorch/pytorch/issues/50010
    if array.ndim == 3:
        input_mean = jnp.mean(array, axis=(0, 1))
        input_var = jnp.var(array, axis=(0, 1), ddof=1)
        input_count = array.shape[0] * array.shape[1]
    else:
        input_mean = jnp.mean(array, axis=0)
        input_var = jnp.var(array, axis=0, ddof=1)
        input_count = array.shape[0]

    delta = input_mean - running_mean
    total_count = current_count + input_count
    M2 = (running_variance * current_count) + (input_var * input_count) \
       + delta ** 2 * current_count * input_count / total_count

    return running_mean + delta * input_count / total_count, M2 / total_count, total_count


@jax.jit
def _inverse(running_mean: jax.Array,
             running_variance: jax.Array,
             clip_threshold: float,
             array: jax.Array) -> jax.Array:  # yapf: disable
    return jnp.sqrt(running_variance) * jnp.clip(array, -clip_threshold, clip_threshold) + running_mean


@jax.jit
def _standardization(running_mean: jax.Array,
                     running_variance: jax.Array,
                     clip_threshold: float,
                     epsilon: float,
                     array: jax.Array) -> jax.Array:
    return jnp.clip((array - running_mean) / (jnp.sqrt(running_variance) + epsilon), -clip_threshold, clip_threshold)


class RunningStandardScaler:
    def __init__(self,
                 size: Union[int, Tuple[int], gym.Space, gymnasium.Space],
                 epsilon: float = 1e-8,
                 clip_threshold: float = 5.0,
                 device: Optional[Union[str, jax.Device]] = None) -> None:
        """Standardize the input data by removing the mean and scaling by the standard deviation
        """
        self._jax = config.jax.backend == "jax"

        self.epsilon = epsilon
        self.clip_threshold = clip_threshold
        if device is None:
            self.device = jax.devices()[0]
        else:
            self.device = device if isinstance(device, jax.Device) else jax.devices(device)[0]

        size = self._get_space_size(size)

        if self._jax:
            self.running_mean = jnp.zeros(size, dtype=jnp.float32)
            self.running_variance = jnp.ones(size, dtype=jnp.float32)
            self.current_count = jnp.ones((1,), dtype=jnp.float32)
        else:
            self.running_mean = np.zeros(size, dtype=np.float32)
            self.running_variance = np.ones(size, dtype=np.float32)
            self.current_count = np.ones((1,), dtype=np.float32)

    @property
    def state_dict(self) -> Mapping[str, Union[np.ndarray, jax.Array]]:
        """Dictionary containing references to the whole state of the module
        """
        class _StateDict:
            def __init__(self, params):
                self.params = params

            def replace(self, params):
                return params

        return _StateDict({
            "running_mean": self.running_mean,
            "running_variance": self.running_variance,
            "current_count": self.current_count
        })

    @state_dict.setter
    def state_dict(self, value: Mapping[str, Union[np.ndarray, jax.Array]]) -> None:
        if self._jax:
            self.running_mean = _copyto(self.running_mean, value["running_mean"])
            self.running_variance = _copyto(self.running_variance, value["running_variance"])
            self.current_count = _copyto(self.current_count, value["current_count"])
        else:
            np.copyto(self.running_mean, value["running_mean"])
            np.copyto(self.running_variance, value["running_variance"])
            np.copyto(self.current_count, value["current_count"])

    def _get_space_size(self, space: Union[int, Tuple[int], gym.Space, gymnasium.Space]) -> int:
        """Get the size (number of elements) of a space
        """
        if type(space) in [int, float]:
            return int(space)
        elif type(space) in [tuple, list]:
            return np.prod(space)
        elif issubclass(type(space), gym.Space):
            if issubclass(type(space), gym.spaces.Discrete):
                return 1
            elif issubclass(type(space), gym.spaces.Box):
                return np.prod(space.shape)
            elif issubclass(type(space), gym.spaces.Dict):
                return sum([self._get_space_size(space.spaces[key]) for key in space.spaces])
        elif issubclass(type(space), gymnasium.Space):
            if issubclass(type(space), gymnasium.spaces.Discrete):
                return 1
            elif issubclass(type(space), gymnasium.spaces.Box):
                return np.prod(space.shape)
            elif issubclass(type(space), gymnasium.spaces.Dict):
                return sum([self._get_space_size(space.spaces[key]) for key in space.spaces])
        raise ValueError(f"Space type {type(space)} not supported")

    def _parallel_variance(self,
                           input_mean: Union[np.ndarray, jax.Array],
                           input_var: Union[np.ndarray, jax.Array],
                           input_count: int) -> None:
        """Update internal variables using the parallel algorithm for computing variance
        """
        delta = input_mean - self.running_mean
        total_count = self.current_count + input_count
        M2 = (self.running_variance * self.current_count) + (input_var * input_count) \
            + delta ** 2 * self.current_count * input_count / total_count

        # update internal variables
        self.running_mean = self.running_mean + delta * input_count / total_count
        self.running_variance = M2 / total_count
        self.current_count = total_count

    def __call__(self,
                 x: Union[np.ndarray, jax.Array],
                 train: bool = False,
                 inverse: bool = False) -> Union[np.ndarray, jax.Array]:
        """Forward pass of the standardizer
        """
        if train:
            if self._jax:
                self.running_mean, self.running_variance, self.current_count = \
                    _parallel_variance(self.running_mean, self.running_variance, self.current_count, x)
            else:
                # ddof = 1: https://github.com/pytorch/pytorch/issues/50010
                if x.ndim == 3:
                    self._parallel_variance(np.mean(x, axis=(0, 1)),
                                            np.var(x, axis=(0, 1), ddof=1),
                                            x.shape[0] * x.shape[1])
                else:
                    self._parallel_variance(np.mean(x, axis=0), np.var(x, axis=0, ddof=1), x.shape[0])

        # scale back the data to the original representation
        if inverse:
            if self._jax:
                return _inverse(self.running_mean, self.running_variance, self.clip_threshold, x)
            return np.sqrt(self.running_variance) * np.clip(x, -self.clip_threshold,
                                                            self.clip_threshold) + self.running_mean
        # standardization by centering and scaling
        if self._jax:
            return _standardization(self.running_mean, self.running_variance, self.clip_threshold, self.epsilon, x)
        return np.clip((x - self.running_mean) / (np.sqrt(self.running_variance) + self.epsilon),
                       a_min=-self.clip_threshold,
                       a_max=self.clip_threshold)


if __name__ == "__main__":
    scaler = RunningStandardScaler(size=2)
    ref = RunningStandardScaler(size=(2,))
    ref._jax = False
    ref.running_mean = np.zeros(2, dtype=np.float32)
    ref.running_variance = np.ones(2, dtype=np.float32)
    ref.current_count = np.ones((1,), dtype=np.float32)
    keys = jax.random.split(jax.random.PRNGKey(0), 5)
    for i, k in enumerate(keys):
        shape = (8, 2) if i % 2 == 0 else (4, 8, 2)
        x = 3.0 + 2.0 * jax.random.normal(k, shape)
        y = scaler(x, train=True)
        ref(np.asarray(x), train=True)
        assert y.shape == shape
    assert np.allclose(scaler.running_mean, ref.running_mean, atol=1e-4)
    assert np.allclose(scaler.running_variance, ref.running_variance, atol=1e-3)
    assert float(scaler.current_count[0]) == 1 + 3 * 8 + 2 * 32
    x = jnp.array([[1.0, 2.0], [3.0, 4.0]])
    assert np.allclose(scaler(scaler(x), inverse=True), x, atol=1e-4)
    other = RunningStandardScaler(size=2)
    other.state_dict = scaler.state_dict.params
    assert np.allclose(other(x), scaler(x))
