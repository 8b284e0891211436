# source: https://github.com/reservoirpy/reservoirpy/blob/1fc11351bfba7f4b9a35464a1b99d804a5d6ccea/reservoirpy/jax/nodes/intrinsic_plasticity.py
#   (IPReservoir of the jax backend, as reported in reservoirpy#235: "jitted _step with
#   static self freezes a/b")
# observed on jax 0.10.2 CPU: `_step` is jitted with `self` static and reads self.a and
#   self.b (line 222); `partial_fit` changes them after every step, but the node's hash is
#   its identity, so every later call reuses the trace of the first step, where a = 1 and
#   b = 0. After fit, a and b have moved, yet node._step(state, u) still returns what
#   a = 1, b = 0 give, not what the un-jitted step gives with the learned a and b.
#   The class is kept as reservoirpy wrote it, its docstring and attribute annotations
#   elided; reservoirpy is not installed, so TrainableNode (its step and _set_input_dim as
#   in reservoirpy/jax/node.py at the same commit), get_function, the bernoulli and
#   uniform initializers, rand_generator, check_node_input, filter_nan_targets, is_array
#   and is_multiseries are minimal stand-ins, and the type aliases are Any.
# gap: stale-state-attributes
from functools import partial
from typing import Any, Callable, Literal, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np
from numpy.random import Generator

NodeInput = State = Timeseries = Timestep = Weights = Any


def check_node_input(x, expected_dim=None):
    # stand-in for reservoirpy.utils.data_validation.check_node_input
    return None


def filter_nan_targets(x, y):
    # stand-in for reservoirpy.utils.data_validation.filter_nan_targets
    return x, y


def is_array(obj):
    # stand-in for reservoirpy.type.is_array
    return isinstance(obj, (np.ndarray, jax.Array))


def is_multiseries(x):
    # stand-in for reservoirpy.type.is_multiseries
    return isinstance(x, Sequence) and not is_array(x)


def get_function(name):
    # stand-in for reservoirpy.jax.activationsfunc.get_function
    return {"tanh": jnp.tanh, "sigmoid": jax.nn.sigmoid}[name]


def rand_generator(seed=None):
    # stand-in for reservoirpy.jax.utils.rand_generator
    return np.random.default_rng(seed)


def uniform(m, n, sr=None, connectivity=0.1, dtype=jnp.float32, seed=None, **kwargs):
    # stand-in for reservoirpy.jax.mat_gen.uniform (dense, rescaled to spectral radius sr)
    w = seed.uniform(-1, 1, (m, n)) * (seed.random((m, n)) < connectivity)
    if sr is not None:
        w = w * sr / max(abs(np.linalg.eigvals(w)).max(), 1e-8)
    return jnp.asarray(w, dtype=dtype)


def bernoulli(m, n=None, input_scaling=1.0, connectivity=0.1, dtype=jnp.float32, seed=None, **kwargs):
    # stand-in for reservoirpy.jax.mat_gen.bernoulli
    shape = (m,) if n is None else (m, n)
    w = seed.choice([-1.0, 1.0], shape) * (seed.random(shape) < connectivity) * input_scaling
    return jnp.asarray(w, dtype=dtype)


class TrainableNode:
    # stand-in for reservoirpy.jax.node.TrainableNode: step and _set_input_dim as written there
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


class IPReservoir(TrainableNode):
    def __init__(
        self,
        units: Optional[int] = None,
        sr: Optional[float] = None,
        lr: Union[float, jax.Array] = 1.0,
        mu: float = 0.0,
        sigma: float = 1.0,
        learning_rate: float = 5e-4,
        epochs: int = 1,
        input_scaling: Union[float, Sequence] = 1.0,
        input_connectivity: float = 0.1,
        rc_connectivity: float = 0.1,
        Win: Union[Weights, Callable] = bernoulli,
        W: Union[Weights, Callable] = uniform,
        bias: Union[Weights, Callable] = bernoulli,
        activation: Literal["tanh", "sigmoid"] = "tanh",
        input_dim: Optional[int] = None,
        dtype: type = jnp.float64,
        seed: Optional[Union[int, Generator]] = None,
        name=None,
    ):

        self.units = units
        self.sr = sr
        self.lr = lr
        self.mu = mu
        self.sigma = sigma
        self.learning_rate = learning_rate
        self.epochs = epochs
        self.input_scaling = input_scaling
        self.input_connectivity = input_connectivity
        self.rc_connectivity = rc_connectivity
        self.Win = Win
        self.W = W
        self.bias = bias
        self.activation = get_function(activation)

        if activation == "tanh":
            self.gradient = partial(IPReservoir.gaussian_gradients, mu=mu, sigma=sigma)
        elif activation == "sigmoid":
            self.gradient = partial(IPReservoir.exp_gradients, mu=mu)
        else:
            raise ValueError(
                f"Activation '{activation}' must be 'tanh' or 'sigmoid' when " "applying intrinsic plasticity."
            )

        # set input_dim (if possible)
        if input_dim is not None and is_array(Win) and Win.shape[-1] != input_dim:
            raise ValueError(
                f"Both 'input_dim' and 'Win' are set but their dimensions doesn't "
                f"match: {input_dim} != {Win.shape[-1]}."
            )
        self.input_dim = input_dim
        if is_array(Win):
            self.input_dim = jnp.shape(Win)[-1]

        # set output_dim
        if units is None and not is_array(W):
            raise ValueError("'units' parameter must not be None if 'W' parameter is not " "a matrix.")
        if units is not None and is_array(W) and W.shape[-1] != units:
            raise ValueError(
                f"Both 'units' and 'W' are set but their dimensions doesn't match: " f"{units} != {W.shape[-1]}."
            )
        self.output_dim = units
        if is_array(W):
            self.output_dim = W.shape[-1]
            self.units = W.shape[-1]

        self.dtype = dtype
        self.rng = rand_generator(seed=seed)
        self.name = name

    def initialize(self, x: Union[NodeInput, Timestep], y: None = None):

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

        self.a = jnp.ones((self.output_dim,))
        self.b = jnp.zeros((self.output_dim,))

        self.state = dict(internal=jnp.zeros((self.output_dim,)), out=jnp.zeros((self.output_dim,)))

        self.initialized = True

    @partial(jax.jit, static_argnums=(0,))
    def _step(self, state: State, x: Timestep) -> State:
        W = self.W  # NxN
        Win = self.Win  # NxI
        bias = self.bias  # N or float
        f = self.activation
        lr = self.lr
        (internal, external) = state["internal"], state["out"]

        next_state = W @ external + Win @ x + bias
        next_state = (1 - lr) * internal + lr * next_state

        next_external = f(self.a * next_state + self.b)  # expect: JIT201

        return {"internal": next_state, "out": next_external}

    def fit(self, x: NodeInput, y: None = None, warmup: int = 0) -> "IPReservoir":
        check_node_input(x, expected_dim=self.input_dim)
        x, y = filter_nan_targets(x, y)

        if not self.initialized:
            self.initialize(x, y)

        for _epoch in range(self.epochs):
            if is_multiseries(x):
                for seq in x:
                    self.partial_fit(seq[warmup:])
            else:
                self.partial_fit(x[warmup:])

        return self

    def partial_fit(self, x: Timeseries):
        for u in x:
            post_state = self.step(u)
            pre_state = self.state["internal"]

            delta_a, delta_b = self.gradient(x=pre_state.T, y=post_state.T, a=self.a)
            self.a += self.learning_rate * delta_a
            self.b += self.learning_rate * delta_b

    def gaussian_gradients(x, y, a, mu, sigma):
        """KL loss gradients of neurons with tanh activation (~ Normal(mu, sigma))."""
        sig2 = sigma**2
        delta_b = -(-(mu / sig2) + (y / sig2) * (2 * sig2 + 1 - y**2 + mu * y))
        delta_a = (1 / a) + delta_b * x
        return delta_a, delta_b

    def exp_gradients(x, y, a, mu):
        """KL loss gradients of neurons with sigmoid activation
        (~ Exponential(lambda=1/mu))."""
        delta_b = 1 - (2 + (1 / mu)) * y + (y**2) / mu
        delta_a = (1 / a) + delta_b * x
        return delta_a, delta_b


if __name__ == "__main__":
    x = np.random.default_rng(0).normal(size=(200, 3)).astype(np.float32)
    node = IPReservoir(units=5, sr=0.9, mu=0.0, sigma=0.1, learning_rate=5e-2,
                       input_connectivity=1.0, rc_connectivity=1.0, dtype=jnp.float32, seed=0)
    node.fit(x)
    assert not jnp.allclose(node.a, 1.0) and not jnp.allclose(node.b, 0.0)
    state, u = node.state, jnp.asarray(x[0])
    jitted = node._step(state, u)["out"]
    fresh = IPReservoir._step.__wrapped__(node, state, u)["out"]
    a, b = node.a, node.b
    node.a, node.b = jnp.ones(5), jnp.zeros(5)
    initial = IPReservoir._step.__wrapped__(node, state, u)["out"]
    node.a, node.b = a, b
    # observed: line 222 keeps a = 1, b = 0 from the first trace: the jitted step ignores the learned gain
    assert jnp.allclose(jitted, initial)
    assert not jnp.allclose(jitted, fresh)
