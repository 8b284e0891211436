# source: https://github.com/charlesollion/dlexperiments/blob/ee9533ccea2488836a5926081d0ab6bbd29df5df/9-PDE-Intro/EDP%20intro%20KPP.ipynb
# observed on jax 0.10.2 CPU: silent: train_iter passes the same `rng` to the jitted train_step on every iteration and train_step does not return its split key, so every step trains on the same random time t
# gap: flow-sensitive
# (code cells 29-41 of the notebook, the UNet part; laplacian_grid copied from the repo's 9-PDE-Intro/tools/jaxtools.py)
# (stand-ins: the repo's 31M-parameter UNet replaced by a two-conv module with the same (x, t) call; the 128x128 initial grid of cell 20 (models.solver.build_init_grid, not in the repo) by a 16x16 Gaussian bump; tqdm dropped)
# (`import numpy as onp` and the __main__ checks added)
from typing import Sequence
from flax import linen as fnn
import jax.numpy as jnp
import numpy as onp


# ---- stand-in for models.nets.UNet
class UNet(fnn.Module):
    features: int = 64
    training: bool = True

    @fnn.compact
    def __call__(self, x, t):
        z = fnn.Conv(4, kernel_size=(3, 3))(x + jnp.ones(x.shape) * t)
        z = fnn.relu(z)
        y = fnn.Conv(1, kernel_size=(1, 1))(z)
        return fnn.sigmoid(y)


# ---- stand-in for cell 20 (grid initial condition)
Nx = Ny = 16
_g = jnp.linspace(0., 1., Nx)
xx, yy = jnp.meshgrid(_g, _g)
uu = 10 * jnp.exp(-((xx-0.5)**2 + (yy-0.5)**2)*100)
uu = uu/jnp.max(uu)


# ---- tools/jaxtools.py (repo)
import jax
import jax.numpy as np
from jax import jit

kernel_simple = np.array([[0.,  1., 0.],
                          [1., -4., 1.],
                          [0.,  1., 0.]])

def laplacian_grid(grid, ker=kernel_simple, pad=1):
    return jax.scipy.signal.convolve2d(grid, ker)[pad:-pad, pad:-pad]


# ---- notebook cell 29
import jax.numpy as np
import jax
from jax import grad, jit, vmap, jacfwd, jacrev
from jax import random
from functools import partial


key = random.PRNGKey(1)
key, subkey = random.split(key)
unet = UNet(features=64, training=False)

init_rngs = {'params': random.PRNGKey(0)}

unet_variables = unet.init(init_rngs, np.ones([1, Nx, Ny, 1]), np.ones([1]))

@jit
def unet_func(params, x, t):
    return unet.apply({"params":params}, x, t)

# ---- cell 30
u0_batched = np.expand_dims(uu, (0, -1))
t_test = np.array([[0.0]])

# ---- cell 32
from functools import partial

def jac(params, f, t, x):
    unet_t = partial(f, params, x)
    out = np.squeeze(jacfwd(unet_t)(t), (-1,-2))
    return out

# ---- cell 33
D = 1.0
r = 1.0

@jit
def mse_phy(params, t_, x_):
    # time derivative
    du_t = jac(params, unet_func, t_, x_)
    # rhs
    u_out = unet_func(params, x_, t_)
    lap_u = np.expand_dims(laplacian_grid(np.squeeze(u_out)), (0, -1))
    pde_rhs = D*lap_u - r*u_out*(1-u_out)
    f_out = du_t - pde_rhs
    return np.mean(f_out**2)

mask_border = np.expand_dims(1. - np.pad(np.ones((Nx-2, Ny-2)), ((1, 1), (1,1))), (0, -1))

@jit
def mse_border(params, t_, x_):
    u_out = unet_func(params, x_, t_)
    return np.mean(u_out **2 * mask_border)

# ---- cell 35
def loss(t_, params_, delta = 1e-1, loss_weights={'border': 1., 'phy': 1.}):
    loss_border, loss_phy = mse_phy(params_, t_, u0_batched), mse_border(params_, t_, u0_batched)
    total_loss = loss_weights['border'] * loss_border + loss_weights['phy'] * loss_phy

    # total loss, then aux loss values. Only the first output is differentiated (because of has_aux=True below)
    return (total_loss, (loss_border, loss_phy))

losses_and_grad = jit(jax.value_and_grad(loss, 1, has_aux=True))

# ---- cell 39
from flax.training import train_state
import optax

def create_train_state(rng, learning_rate, momentum):
    cnn = UNet()
    params = cnn.init(rng, np.ones([1, Nx, Ny, 1]), np.ones([1]))['params']
    tx = optax.sgd(learning_rate, momentum)
    return train_state.TrainState.create(
        apply_fn=cnn.apply, params=params, tx=tx)

# ---- cell 40
@jax.jit
def train_step(state, key):
    """Train for a single step."""
    key, subkey = random.split(key)
    t = random.uniform(subkey, shape=(1,1))

    (_, logits), grads = losses_and_grad(t, state.params)
    state = state.apply_gradients(grads=grads)
    return state

# ---- cell 41
state = create_train_state(subkey, 0.01, 0.99)

def train_iter(state, n_iter, rng):
    for i in range(n_iter):
        state = train_step(state, rng)  # expect: JIT502


if __name__ == "__main__":
    # Record the time t that train_step samples on each call (runtime callback,
    # installed before train_step is first traced).
    seen_t = []
    _losses_and_grad = losses_and_grad

    def losses_and_grad(t, params):
        jax.debug.callback(lambda v: seen_t.append(onp.asarray(v)), t)
        return _losses_and_grad(t, params)

    train_iter(state, 10, subkey)  # tolerate: JIT502
    jax.effects_barrier()

    assert len(seen_t) == 10, len(seen_t)
    assert all((t == seen_t[0]).all() for t in seen_t), seen_t
    print("observed: all 10 steps sampled the same t =", float(seen_t[0].ravel()[0]))
# observed: line 138 train_step receives the same `rng` on all 10 iterations: the t it samples with random.uniform is identical on every step
