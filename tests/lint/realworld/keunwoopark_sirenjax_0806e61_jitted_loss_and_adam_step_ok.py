# source: https://github.com/KeunwooPark/siren-jax/blob/0806e614208d5916941cd72ef7b6195f3d2d2250/siren/optimizer.py
# observed on jax 0.10.2 CPU: runs clean: the Siren image model's jitted loss (a closure over
#   the model's static network, made once per model) and JaxOptimizer's jitted Adam step
#   (which jits jax.grad of that loss inside its own trace) compile once for the first step
#   and not again for the later steps, with the iteration count passed as an argument; the
#   loss falls, and the jitted loss equals the same loss computed without jit. The gradient
#   model's jitted loss (jacfwd of the network w.r.t. its input, under vmap) runs too.
# gap: stale-state-attributes
#   Kept as written: JaxOptimizer (siren/optimizer.py), BaseImageModel, NormalImageModel and
#   GradientImageModel (siren/model.py), Siren, create_mlp, create_random_generator and
#   jacobian_wrt_input (siren/network.py), Dense, sine_with_gain, Sine (siren/layer.py) and
#   the initializers (siren/initializer.py), all at the same commit, in one file. Changed:
#   `shape = core.as_named_shape(shape)` (jax.core.as_named_shape no longer exists) is
#   `shape = tuple(shape)`; TrainingState, the l-bfgs names, the laplacian/combined models,
#   elementwise_jacobian and hessian_wrt_input are left out. Added: __main__ fits a random
#   8x8 image (the coordinates and pixels train.py's data loader makes) for a few steps,
#   counting compilations.
from abc import ABC, abstractmethod
import time

import jax
from jax import jit, vmap, jacfwd
from jax import numpy as jnp
from jax import random
from jax.example_libraries import stax, optimizers
from jax.nn.initializers import glorot_normal
from jax._src.nn.initializers import _compute_fans


# --- siren/initializer.py ---
def siren_init(omega=30, in_axis=-2, out_axis=-1, dtype=jnp.float32):
    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis)
        variance = jnp.sqrt(6 / fan_in) / omega
        return random.uniform(key, shape, dtype, minval=-variance, maxval=variance)

    return init


def siren_init_first(in_axis=-2, out_axis=-1, dtype=jnp.float32):
    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis)
        variance = 1 / fan_in
        return random.uniform(key, shape, dtype, minval=-variance, maxval=variance)

    return init


def bias_uniform(in_axis=-2, out_axis=-1, dtype=jnp.float32):
    # this is what Pytorch default Linear uses.
    def init(key, shape, dtype=dtype):
        shape = tuple(shape)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis)
        variance = jnp.sqrt(1 / fan_in)
        return random.uniform(
            key, (int(fan_out),), dtype, minval=-variance, maxval=variance
        )

    return init


# --- siren/layer.py ---
def Dense(out_dim, W_init=glorot_normal(), b_init=glorot_normal()):
    """(Custom) Layer constructor function for a dense (fully-connected) layer."""

    def init_fun(rng, input_shape):
        output_shape = input_shape[:-1] + (out_dim,)
        k1, k2 = random.split(rng)
        # the below line is different from the original jax's Dense
        W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(
            k2, (input_shape[-1], out_dim)
        )
        return output_shape, (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b

    return init_fun, apply_fun


def sine_with_gain(gain):
    def func(input):
        return jnp.sin(input * gain)

    return func


def Sine(gain):
    return stax.elementwise(sine_with_gain(gain))


# --- siren/network.py ---
def create_mlp(input_dim, num_channels, output_dim, omega=30):
    modules = []
    modules.append(
        Dense(num_channels[0], W_init=siren_init_first(), b_init=bias_uniform())
    )
    modules.append(Sine(omega))
    for nc in num_channels:
        modules.append(
            Dense(nc, W_init=siren_init(omega=omega), b_init=bias_uniform())
        )
        modules.append(Sine(omega))

    modules.append(
        Dense(output_dim, W_init=siren_init(omega=omega), b_init=bias_uniform())
    )
    net_init_random, net_apply = stax.serial(*modules)

    in_shape = (-1, input_dim)
    rng = create_random_generator()
    out_shape, net_params = net_init_random(rng, in_shape)

    return net_params, net_apply


def create_random_generator(rng_seed=None):
    if rng_seed is None:
        rng_seed = int(round(time.time()))
    rng = jax.random.PRNGKey(rng_seed)

    return rng


class Siren:
    def __init__(self, input_dim, layers, output_dim, omega, rng_seed=None):
        net_params, net_apply = create_mlp(input_dim, layers, output_dim, omega)

        self.init_params = net_params
        self.net_apply = net_apply

    """ *_p methods are used for optimization """

    def f(self, net_params, x):
        return self.net_apply(net_params, x)

    def df(self, net_params, x):
        return jacobian_wrt_input(self.net_apply, net_params, x)


def jacobian_wrt_input(net_apply, net_params, x):
    f = lambda x: net_apply(net_params, x)
    vmap_jac = vmap(jacfwd(f))

    J = vmap_jac(x)
    return J


# --- siren/model.py ---
class BaseImageModel(ABC):
    def __init__(self, layers, n_channel, omega):
        self.net = self.create_network(layers, n_channel, omega)
        self.net_params = self.net.init_params
        self.loss_func = self.create_loss_func()

    @abstractmethod
    def create_network(self, layers, omega):
        pass

    @abstractmethod
    def create_loss_func(self):
        pass

    def update_net_params(self, params):
        self.net_params = params

    def forward(self, x):
        x = jnp.array(x, dtype=jnp.float32)
        return self.net.f(self.net_params, x)

    def gradient(self, x):
        return self.net.df(self.net_params, x)


class NormalImageModel(BaseImageModel):
    def create_network(self, layers, n_channel, omega):
        return Siren(2, layers, n_channel, omega)

    def create_loss_func(self):
        @jit
        def loss_func(net_params, data):
            x = data["input"]
            y = data["output"]
            output = self.net.f(net_params, x)
            return jnp.mean((output - y) ** 2)

        return loss_func


class GradientImageModel(BaseImageModel):
    def create_network(self, layers, n_channel, omega):
        if n_channel != 1:
            raise Exception(
                "n_channel should be 1 for {}".format(self.__class__.__name__)
            )
        return Siren(2, layers, 1, omega)

    def create_loss_func(self):
        @jit
        def loss_func(net_params, data):
            x = data["input"]
            y = data["output"]
            output = self.net.df(net_params, x)
            output = output.squeeze(1)
            diff = output - y
            return jnp.mean(jnp.sum(diff ** 2, axis=-1))

        return loss_func


# --- siren/optimizer.py ---
jax_optimizers = ["adam"]


class JaxOptimizer:
    def __init__(self, optimizer_name, model, lr):
        if optimizer_name not in jax_optimizers:
            raise ValueError("Optimizer {} is not implemented yet".format(name))

        if optimizer_name == "adam":
            opt_init, opt_update, get_params = optimizers.adam(step_size=lr)

        self.opt_state = opt_init(model.net_params)
        self.get_params = get_params

        @jit
        def step(i, _opt_state, data):
            _params = get_params(_opt_state)
            loss_func = model.loss_func
            g = jit(jax.grad(loss_func))(_params, data)
            return opt_update(i, g, _opt_state)

        self._step = step
        self.iter_cnt = 0

    def step(self, data):
        self.opt_state = self._step(self.iter_cnt, self.opt_state, data)
        self.iter_cnt += 1

    def get_optimized_params(self):
        return self.get_params(self.opt_state)


if __name__ == "__main__":
    import numpy as np

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    # the data train.py's NormalImageLoader makes: normalized pixel coordinates and pixels
    rs = np.random.RandomState(0)
    i, j = np.meshgrid(np.linspace(-1, 1, 8), np.linspace(-1, 1, 8), indexing="ij")
    x = np.reshape(np.stack([i, j], axis=-1), (-1, 2))
    y = rs.uniform(-1, 1, size=(64, 3))
    data = {"input": jnp.array(x), "output": jnp.array(y)}

    model = NormalImageModel([32, 32], 3, 30.0)
    optimizer = JaxOptimizer("adam", model, 1e-3)
    first_loss = float(model.loss_func(optimizer.get_optimized_params(), data))
    per_step = []
    for _ in range(20):
        n = len(compiles)
        optimizer.step(data)
        per_step.append(len(compiles) - n)
    params = optimizer.get_optimized_params()
    last_loss = float(model.loss_func(params, data))
    print("compilations per step:", per_step, "loss", first_loss, "->", last_loss)
    assert per_step[0] >= 1 and per_step[1:] == [0] * 19, per_step
    assert last_loss < first_loss
    eager = jnp.mean((model.net.f(params, data["input"]) - data["output"]) ** 2)
    assert jnp.allclose(eager, model.loss_func(params, data), rtol=1e-5, atol=1e-6)

    gmodel = GradientImageModel([16], 1, 30.0)
    gdata = {"input": jnp.array(x), "output": jnp.array(rs.uniform(-1, 1, size=(64, 2)))}
    gopt = JaxOptimizer("adam", gmodel, 1e-4)
    for _ in range(3):
        gopt.step(gdata)
    assert jnp.isfinite(gmodel.loss_func(gopt.get_optimized_params(), gdata))
    print("OK")
