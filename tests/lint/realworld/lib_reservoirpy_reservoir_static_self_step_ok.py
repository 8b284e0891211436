# source: https://github.com/reservoirpy/reservoirpy/blob/1fc11351bfba7f4b9a35464a1b99d804a5d6ccea/reservoirpy/jax/nodes/reservoir.py
# observed on jax 0.10.2 CPU: runs clean. `_step` is jitted with `self` static, and every
#   attribute it reads (W, Win, bias, activation, lr) is set by __init__ or by initialize,
#   which Node.step runs before the first call of `_step`; nothing changes them afterwards,
#   so the trace reused on every step computes what the un-jitted step computes.
#   The class is kept as reservoirpy wrote it, its docstring and attribute annotations
#   elided; reservoirpy is not installed, so Node (its step and _set_input_dim as in
#   reservoirpy/jax/node.py at the same commit), get_function, tanh, the bernoulli and
#   normal initializers, rand_generator and is_array are minimal stand-ins, and the type
#   aliases are Any.
# gap: stale-state-attributes
from functools import partial
from typing import Any, Callable, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np
from numpy.random import Generator

NodeInput = State = Timestep = Weights = Any

tanh = jnp.tanh  # stand-in for reservoirpy.jax.activationsfunc.tanh


def get_function(name):
    # stand-in for reservoirpy.jax.activationsfunc.get_function
    return name if callable(name) else {"tanh": jnp.tanh}[name]


def is_array(obj):
    # stand-in for reservoirpy.jax.type.is_array
    return isinstance(obj, (np.ndarray, jax.Array))


def rand_generator(seed=None):
    # stand-in for reservoirpy.jax.utils.rand_generator
    return np.random.default_rng(seed)


def normal(m, n, sr=None, connectivity=0.1, dtype=jnp.float32, seed=None, **kwargs):
    # stand-in for reservoirpy.jax.mat_gen.normal (dense, rescaled to spectral radius sr)
    w = seed.normal(size=(m, n)) * (seed.random((m, n)) < connectivity)
    if sr is not None:
        w = w * sr / max(abs(np.linalg.eigvals(w)).max(), 1e-8)
    return jnp.asarray(w, dtype=dtype)


def bernoulli(m, n=None, input_scaling=1.0, connectivity=0.1, dtype=jnp.float32, seed=None, **kwargs):
    # stand-in for reservoirpy.jax.mat_gen.bernoulli
    shape = (m,) if n is None else (m, n)
    w = seed.choice([-1.0, 1.0], shape) * (seed.random(shape) < connectivity) * input_scaling
    return jnp.asarray(w, dtype=dtype)


class Node:
    # stand-in for reservoirpy.jax.node.Node: step and _set_input_dim as written there
    initialized: bool = False

    def step(self, x: Optional[Timestep] = None) -> Timestep:
        if x is None:
            x: Timestep = jnp.empty((0,))

        if not self.initialized:
            self.initialize(x)

        new_state = self._step(self.state, x)

        self.state = new_state
        return new_state["out"]

    def _set_input_dim(self, x):
        if x is None:
            return
        input_dim = x.shape[-1]
        if self.input_dim is not None and self.input_dim != input_dim:
            raise ValueError("input_dim mismatch")
        self.input_dim = input_dim


class Reservoir(Node):
    def __init__(
        self,
        units: Optional[int] = None,
        lr: Union[float, jax.Array] = 1.0,
        sr: float = 1.0,
        input_scaling: Union[float, Sequence] = 1.0,
        input_connectivity: float = 0.1,
        rc_connectivity: float = 0.1,
        Win: Union["Weights", Callable] = bernoulli,
        W: Union["Weights", Callable] = normal,
        bias: Union["Weights", Callable, float] = 0.0,
        activation: Union[str, Callable] = tanh,
        input_dim: Optional[int] = None,
        dtype: type = jnp.float64,
        seed: Optional[Union[int, Generator]] = None,
        name: Optional[str] = None,
    ):

        self.lr = lr
        self.sr = sr
        self.input_scaling = input_scaling
        self.input_connectivity = input_connectivity
        self.rc_connectivity = rc_connectivity
        self.Win = Win
        self.W = W
        self.bias = bias
        self.activation = get_function(activation)
        self.dtype = dtype
        self.rng = rand_generator(seed=seed)
        self.name = name

        # set units / output_dim
        if units is None and not is_array(W):
            raise ValueError("'units' parameter must not be None if 'W' parameter is not a matrix.")
        if units is not None and is_array(W) and W.shape[-1] != units:
            raise ValueError(
                f"Both 'units' and 'W' are set but their dimensions doesn't match: " f"{units} != {W.shape[-1]}."
            )
        self.units = units if units is not None else W.shape[-1]
        self.output_dim = self.units

        # set input_dim (if possible)
        if input_dim is not None and is_array(Win) and Win.shape[-1] != input_dim:
            raise ValueError(
                f"Both 'input_dim' and 'Win' are set but their dimensions doesn't "
                f"match: {input_dim} != {Win.shape[-1]}."
            )
        self.input_dim = Win.shape[-1] if is_array(Win) else input_dim

    def initialize(self, x: Optional[Union[NodeInput, Timestep]]):

        # set input_dim
        self._set_input_dim(x)

        [Win_rng, W_rng, bias_rng] = self.rng.spawn(3)

        if callable(self.Win):
            self.Win = self.Win(
                self.units,
                self.input_dim,
                input_scaling=self.input_scaling,
                connectivity=self.input_connectivity,
                dtype=self.dtype,
                seed=Win_rng,
            )

        if callable(self.W):
            self.W = self.W(
                self.units,
                self.units,
                sr=self.sr,
                connectivity=self.rc_connectivity,
                dtype=self.dtype,
                seed=W_rng,
            )

        if callable(self.bias):
            self.bias = self.bias(
                self.units,
                connectivity=1.0,
                dtype=self.dtype,
                seed=bias_rng,
            )

        self.state = {"out": jnp.zeros((self.units,))}

        self.initialized = True

    @partial(jax.jit, static_argnums=(0,))
    def _step(self, state: State, x: Timestep) -> State:
        W = self.W  # NxN
        Win = self.Win  # NxI
        bias = self.bias  # N or float
        f = self.activation
        lr = self.lr
        s = state["out"]

        next_state = f(W @ s + Win @ x + bias)
        next_state = (1 - lr) * s + lr * next_state

        return {"out": next_state}


if __name__ == "__main__":
    x = np.random.default_rng(0).normal(size=(50, 3)).astype(np.float32)
    node = Reservoir(units=20, lr=0.3, sr=0.9, dtype=jnp.float32, seed=0)
    fresh_state = {"out": jnp.zeros((20,))}
    for u in x:
        out = node.step(u)
        fresh_state = Reservoir._step.__wrapped__(node, fresh_state, u)
        assert jnp.allclose(out, fresh_state["out"], atol=1e-6)
