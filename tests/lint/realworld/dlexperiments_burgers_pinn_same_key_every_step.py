# source: https://github.com/charlesollion/dlexperiments/blob/ee9533ccea2488836a5926081d0ab6bbd29df5df/9-PDE-Intro/EDP%20intro%20Burgers.ipynb
# observed on jax 0.10.2 CPU: silent: the training loop hands the same `key` to border_batch and inside_batch on every step and never splits it, so every reshuffle of both datasets uses the one permutation drawn from that key
# gap: flow-sensitive
# (code cells 2-10 of the notebook; MLP copied from the repo's 9-PDE-Intro/models/nets.py and BurgersDataset from 9-PDE-Intro/data/datasets.py)
# (renamed old API: jax.tree_map -> jax.tree_util.tree_map; steps 5000 -> 20 and the loss print dropped to keep the run short; `import numpy as onp` and the __main__ checks added)
import jax.numpy as np
import jax
from jax import grad, jit, vmap, jacfwd, jacrev
from jax import random
from functools import partial
from typing import Sequence
from flax import linen as fnn
import jax.numpy as jnp
import numpy as onp
import optax


# ---- models/nets.py (repo)
class MLP(fnn.Module):
    features: Sequence[int]

    def setup(self):
        self.layers_m1 = [fnn.Dense(feat) for feat in self.features]
        self.layers_m2 = [fnn.Dense(feat) for feat in self.features]

    def __call__(self, t, x):
        input = jnp.concatenate((t,x))
        final_output = 0 # Initialisation
        for i, (layer1, layer2) in enumerate(zip(self.layers_m1, self.layers_m2)):
            x1 = layer1(input)
            x2 = layer2(input)
            output = (1. - t) * x1 + t * x2
            if i != len(self.layers_m1) - 1:
                input = fnn.relu(output)
            else:
                final_output = output
        return final_output


# ---- data/datasets.py (repo)
class BurgersDataset():
    def __init__(self, key, u0, batch_size=32, batch_f_size=512, N_u=100, N_f=5000):
        """
        Generate Burgers Dataset
        u0: border function at t=0
        """
        self.batch_size = batch_size
        self.batch_f_size = batch_f_size
        self.N_u = N_u
        self.N_f = N_f
        self.curr_idx = 0
        self.curr_f_idx = 0
        self.u0 = u0
        self.generate_data(key)


    def generate_data(self, key):
        # Generate border data
        key, subkey = random.split(key)
        data_type = random.uniform(key, (self.N_u, 1))>0.5
        key, subkey1, subkey2, subkey3 = random.split(key, 4)  # tolerate: JIT502
        self.x_data = data_type * (random.uniform(subkey1, (self.N_u, 1))*2.0-1.0)+ \
            (1-data_type) * ((random.uniform(subkey2, (self.N_u, 1))>0.5)*2.0-1.0)
        self.t_data = data_type * 0 + ((1-data_type) * random.uniform(subkey3, (self.N_u, 1)))
        self.u_data = data_type * np.expand_dims(self.u0(self.x_data), -1)
        # Generate inside data
        key1, key2 = random.split(key, 2)
        self.t_f_data = random.uniform(key1, (self.N_f, 1))
        self.x_f_data = random.uniform(key2, (self.N_f, 1)) * 2.0 - 1.0


    def border_batch(self, key):
        bstart = self.curr_idx
        bend = bstart + self.batch_size
        if bend >= self.N_u:
            bend = self.N_u-1
            self.curr_idx = 0
            idxs = random.permutation(key, np.arange(0, self.N_u))
            self.t_data = self.t_data[idxs]
            self.x_data = self.x_data[idxs]
            self.u_data = self.u_data[idxs]
        else:
            self.curr_idx = self.curr_idx + self.batch_size
        t_ = self.t_data[bstart:bend]
        x_ = self.x_data[bstart:bend]
        u_ = self.u_data[bstart:bend]
        return t_, x_, u_


    def inside_batch(self, key):
        bstart = self.curr_f_idx
        bend = bstart + self.batch_f_size
        if bend >= self.N_f:
            bend = self.N_f-1
            self.curr_f_idx = 0
            idxs = random.permutation(key, np.arange(0, self.N_f))
            self.t_f_data = self.t_f_data[idxs]
            self.x_f_data = self.x_f_data[idxs]
        else:
            self.curr_f_idx = self.curr_f_idx + self.batch_f_size
        t_b = self.t_f_data[bstart:bend]
        x_b = self.x_f_data[bstart:bend]

        return t_b, x_b


# ---- notebook cell 2
key = random.PRNGKey(0)
key, subkey = random.split(key)

# A test point
x_test = np.ones(1) * 0.25
t_test = np.ones(1) * 0.25

model = MLP(features=[20,20,20,20,20,20,20, 1])
init_params = model.init(subkey, t_test, x_test)

@jit
def u(t, x, params_):
    return model.apply(params_, t, x)[0]

print('initialized parameter shapes:\n', jax.tree_util.tree_map(np.shape, init_params))
print(f'\nu(x, t): {u(t_test, x_test, init_params):.3f}')

# ---- cell 3
# t = 0 border condition
def u0(x):
    return - np.sin(np.pi * x)

# u_xx
def hessian(f, index_derivation=0):
    return jacfwd(jacrev(f,index_derivation),index_derivation)

@jit
def f(t, x, params_):
    u_out = u(t, x, params_)
    u_t = grad(u,0)(t, x, params_)
    u_x = grad(u,1)(t, x, params_)
    u_xx = hessian(u, 1)(t, x, params_)[0]
    f_out = u_t + u_out*u_x - (0.01/np.pi)*u_xx
    return np.squeeze(f_out)

# ---- cell 5
def loss(batches, params_):
    t_, x_, u_, tf_, xf_ = batches

    # Physics with mse_f
    mse_f = lambda t,x: partial(f, params_=params_)(t,x)**2
    v_mse_f = vmap(mse_f, (0,0), 0)
    loss_f = np.mean(v_mse_f(tf_, xf_))

    # Borders with mse_u
    def mse_u(t_, x_, u_, params_):
        return np.mean((u_ - u(t_, x_, params_))**2)
    v_mse_u = vmap(partial(mse_u, params_=params_), (0,0,0), 0)
    loss_u = np.mean(v_mse_u(t_, x_, u_))

    # total loss, then aux loss values. Only the first output is differentiated (because of has_aux=True below)
    return (loss_f+loss_u, (loss_u, loss_f))

losses_and_grad = jit(jax.value_and_grad(loss, 1, has_aux=True))

# ---- cell 8
key, subkey = random.split(key, 2)
ds = BurgersDataset(subkey, u0, batch_size=32, N_u=200)

# ---- cell 9
# Optimizer
key, subkey = random.split(key, 2)
params = model.init(subkey, t_test, x_test)
tx = optax.adam(learning_rate=0.001)
opt_state = tx.init(params)


if __name__ == "__main__":
    t0_f = onp.asarray(ds.t_f_data)
    t0_u = onp.asarray(ds.t_data)
    key_before = onp.asarray(key)

    # ---- cell 10: main train loop (the notebook's own code)
    steps = 20
    for i in range(steps):
        tb, xb, ub = ds.border_batch(key)  # tolerate: JIT502
        tb_uni, xb_uni = ds.inside_batch(key)  # expect: JIT502

        losses, grads = losses_and_grad((tb, xb, ub, tb_uni, xb_uni),
                                        params)
        updates, opt_state = tx.update(grads, opt_state)
        params = optax.apply_updates(params, updates)
        total_loss_val, (mse_u_val, mse_f_val) = losses

    # The key is never advanced by the loop.
    assert (onp.asarray(key) == key_before).all()
    # inside_batch wrapped twice (N_f=5000, batch 512, calls 10 and 20) and border_batch
    # twice (N_u=200, batch 32, calls 7 and 14): every reshuffle applied the one
    # permutation drawn from `key`.
    p_f = onp.asarray(random.permutation(key, np.arange(0, ds.N_f)))
    p_u = onp.asarray(random.permutation(key, np.arange(0, ds.N_u)))
    assert (onp.asarray(ds.t_f_data) == t0_f[p_f][p_f]).all()
    assert (onp.asarray(ds.t_data) == t0_u[p_u][p_u]).all()
    print("observed: the same key drives every reshuffle of both datasets")
# observed: line 184 ds.inside_batch gets the same never-split `key` as ds.border_batch on every step: after 20 steps `key` is unchanged, t_f_data equals the start data permuted twice by random.permutation(key, ...) and t_data equals its start permuted twice by the same key's permutation
