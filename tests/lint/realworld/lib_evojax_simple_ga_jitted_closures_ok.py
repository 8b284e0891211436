# source: https://github.com/google/evojax/blob/95465d41c8a294c6a56b2c21cfb7fad689e8086f/evojax/algo/simple_ga.py
#   (the module verbatim)
# observed on jax 0.10.2 CPU: runs clean. SimpleGA jits two closures in __init__ that read
#   self.pop_size, self.param_size, self.sigma and self.truncation while traced; nothing
#   writes those attributes after __init__, so the programs compiled on the first ask/tell
#   stay right, and each compiles once over 30 generations. The PRNG key is split inside the
#   jitted ask_fn and the next key handed back into self.rand_key, so every generation draws
#   new perturbations. Added: evojax is not installed, so NEAlgorithm is reduced to an ABC
#   with abstract ask/tell (evojax/algo/base.py) and create_logger to logging.getLogger; the
#   __main__ block runs the GA on a quadratic fitness and counts compiles.
# gap: stale-state-attributes
import logging
import numpy as np
from typing import Union
from typing import Tuple

import jax
import jax.numpy as jnp

from abc import ABC, abstractmethod


class NEAlgorithm(ABC):  # evojax/algo/base.py, reduced to what SimpleGA uses
    pop_size: int

    @abstractmethod
    def ask(self) -> jnp.ndarray:
        raise NotImplementedError()

    @abstractmethod
    def tell(self, fitness: Union[np.ndarray, jnp.ndarray]) -> None:
        raise NotImplementedError()


def create_logger(name):  # stand-in for evojax.util.create_logger
    return logging.getLogger(name)


class SimpleGA(NEAlgorithm):
    """A simple genetic algorithm implementing truncation selection."""

    def __init__(self,
                 param_size: int,
                 pop_size: int,
                 truncation_divisor: int = 2,
                 sigma: float = 0.01,
                 seed: int = 0,
                 logger: logging.Logger = None):
        """Initialization function.

        Args:
            param_size - Parameter size.
            pop_size - Population size.
            truncation_divisor - Number by which the population is truncated
                                 every iteration.
            sigma - Variance of normal distribution for parameter perturbation
            seed - Random seed for parameters sampling.
            logger - Logger
        """

        if logger is None:
            self.logger = create_logger(name='SimpleGA')
        else:
            self.logger = logger

        self.param_size = param_size

        self.pop_size = abs(pop_size)
        self.truncation_divisor = abs(truncation_divisor)

        if self.pop_size % 2 == 1:
            self.pop_size += 1
            self.logger.info(
                'Population size should be an even number, set to {}'.format(
                    self.pop_size))

        if self.pop_size % self.truncation_divisor != 0:
            self.truncation_divisor = 2
            self.logger.info(
                'Population size must be a multiple of truncation divisor, \
                 set to {}'.format(self.truncation_divisor))

        self.truncation = self.pop_size // self.truncation_divisor
        self.sigma = sigma

        self.params = jnp.zeros((pop_size, param_size))
        self._best_params = None

        self.rand_key = jax.random.PRNGKey(seed=seed)

        self.jnp_array = jax.jit(jnp.array)

        def ask_fn(key: jnp.ndarray,
                   params: Union[np.ndarray,
                                 jnp.ndarray]) -> Tuple[jnp.ndarray,
                                                        Union[np.ndarray,
                                                              jnp.ndarray]]:

            next_key, sample_key = jax.random.split(key=key, num=2)

            perturbations = jax.random.normal(key=sample_key,
                                              shape=(self.pop_size,
                                                     self.param_size))

            return next_key, params + perturbations * self.sigma

        self.ask_fn = jax.jit(ask_fn)

        def tell_fn(fitness: Union[np.ndarray,
                                   jnp.ndarray],
                    params: Union[np.ndarray,
                                  jnp.ndarray]) -> Union[np.ndarray,
                                                         jnp.ndarray]:

            params = params[fitness.argsort(axis=0)]
            params = params[-self.truncation:].repeat(self.truncation_divisor,
                                                      axis=0)
            return params

        self.tell_fn = jax.jit(tell_fn)

    def ask(self) -> jnp.ndarray:
        self.rand_key, self.params = self.ask_fn(self.rand_key, self.params)
        return self.params

    def tell(self, fitness: Union[np.ndarray, jnp.ndarray]) -> None:
        self.params = self.tell_fn(fitness, self.params)
        self._best_params = self.params[-1]

    @property
    def best_params(self) -> jnp.ndarray:
        return self.jnp_array(self._best_params)

    @best_params.setter
    def best_params(self, params: Union[np.ndarray, jnp.ndarray]) -> None:
        self.params = jnp.repeat(params[None, :], self.pop_size, axis=0)
        self._best_params = jnp.array(params, copy=True)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    target = jnp.linspace(-1.0, 1.0, 8)
    ga = SimpleGA(param_size=8, pop_size=64, sigma=0.1, seed=0)
    first = None
    for _ in range(30):
        params = ga.ask()
        fitness = -jnp.sum((params - target) ** 2, axis=1)
        first = fitness.max() if first is None else first
        ga.tell(fitness)
    best = ga.best_params
    assert compiles.count("jit(ask_fn)") == 1, compiles
    assert compiles.count("jit(tell_fn)") == 1, compiles
    assert float(jnp.sum((best - target) ** 2)) < -float(first), (best, first)
    print(float(first), float(jnp.sum((best - target) ** 2)))
