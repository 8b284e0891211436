# source: https://github.com/charlesollion/dlexperiments/blob/ee9533ccea2488836a5926081d0ab6bbd29df5df/9-PDE-Intro/EDP%20intro%20KPP.ipynb
# observed on jax 0.10.2 CPU: runs clean: the KPP notebook's training loop (the later version of the Burgers notebook's loop) splits `key` into fresh subkeys for border_batch and inside_batch on every step
# gap: flow-sensitive
# (code cells 2-11 of the notebook; MLP copied from the repo's 9-PDE-Intro/models/nets.py, BurgersDataset/KPPDataset from 9-PDE-Intro/data/datasets.py)
# (renamed old API: jax.tree_map -> jax.tree_util.tree_map; steps 3000 -> 4 and the periodic loss print dropped to keep the run short; the __main__ block added)
import jax.numpy as np
import jax
from jax import grad, jit, vmap, jacfwd, jacrev
from jax import random
from functools import partial
from typing import Sequence
from flax import linen as fnn
import jax.numpy as jnp
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


# ---- data/datasets.py (repo): BurgersDataset, whose batching KPPDataset inherits
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
        key, subkey1, subkey2, subkey3 = random.split(key, 4)
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


class KPPDataset(BurgersDataset):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


    def generate_data(self, key):
        # Generate border data
        key, subkey1, subkey2 = random.split(key, 3)
        data_type = random.uniform(subkey1, (self.N_u, 1))>0.5
        #data_type = np.ones((self.N_u, 1))
        key, subkey1, subkey2, subkey3, subkey4, subkey5 = random.split(subkey2, 6)
        x_data_t0 = data_type * (random.uniform(subkey1, (self.N_u, 2)))
        border_dim = random.uniform(subkey2, (self.N_u, 1))>0.5
        border_sign = random.uniform(subkey4, (self.N_u, 1))>0.5
        border_value = random.uniform(subkey5, (self.N_u, 1))
        x_data_borderx = (1-data_type) * border_dim * np.concatenate((border_sign, border_value), axis=-1)
        x_data_bordery = (1-data_type) * (1-border_dim) * np.concatenate((border_value, border_sign), axis=-1)
        self.x_data = x_data_t0 + x_data_borderx + x_data_bordery
        self.t_data = data_type * 0 + ((1-data_type) * random.uniform(subkey3, (self.N_u, 1)))
        self.u_data = data_type * np.expand_dims(self.u0(self.x_data), -1)
        # Generate inside data
        key1, key2 = random.split(key, 2)
        self.t_f_data = random.uniform(key1, (self.N_f, 1))
        self.x_f_data = random.uniform(key2, (self.N_f, 2))


# ---- notebook cell 2
key = random.PRNGKey(0)
key, subkey = random.split(key)

# A test point
x_test = np.ones(2) * 0.25
t_test = np.ones(1) * 0.25

model = MLP(features=[20,40,80,80,80,40,20, 1])
init_params = model.init(subkey, t_test, x_test)

@jit
def u(t, x, params_):
    return model.apply(params_, t, x)[0]

print('initialized parameter shapes:\n', jax.tree_util.tree_map(np.shape, init_params))
print(f'\nu(x, t): {u(t_test, x_test, init_params):.3f}')

# ---- cell 3
D = 1.0
r = 1.0

def hessian(f, index_derivation=0):
    return jacfwd(jacrev(f,index_derivation),index_derivation)

def pde_rhs(t_, x_, params_):
    u_out = u(t_, x_, params_)
    lap_u = np.trace(np.squeeze(hessian(u,1)(t_, x_, params_)))
    return D*lap_u - r*u_out*(1-u_out)

@jit
def f(t_, x_, params_):
    u_t = grad(u,0)(t_, x_, params_)
    f_out = u_t - pde_rhs(t_, x_, params_)
    return f_out

# ---- cell 5
def u0(x):
    return np.clip(10 *np.exp(-vmap(np.dot)(x-0.5,x-0.5)*100), 0.0, 1.0)

# ---- cell 6
def loss(batches, params_, delta = 1e-1, loss_weights={'u': 1.0/3, 'f': 1.0/3, 'delta': 1.0/3}):
    t_, x_, u_, tf_, xf_ = batches

    # Physics with mse_f
    mse_f = lambda t,x: partial(f, params_=params_)(t,x)**2
    v_mse_f = vmap(mse_f, (0,0), 0)
    loss_f = np.mean(v_mse_f(tf_, xf_))

    # Delta physics
    def mse_delta(t_, x_, params_):
        return (u(t_ + delta, x_, params_) - u(t_, x_, params_) - delta * pde_rhs(t_, x_, params_))**2
    v_mse_delta = vmap(partial(mse_delta, params_=params_), (0,0), 0)
    loss_delta = .5 * (np.mean(v_mse_delta(t_, x_)) + np.mean(v_mse_delta(tf_, xf_)))

    # Borders with mse_u
    def mse_u(t_, x_, u_, params_):
        return np.squeeze((u_ - u(t_, x_, params_))**2)
    v_mse_u = vmap(partial(mse_u, params_=params_), (0,0,0), 0)
    loss_u = np.mean(v_mse_u(t_, x_, u_))

    # total loss, then aux loss values. Only the first output is differentiated (because of has_aux=True below)
    total_loss = loss_weights['u'] * loss_u + loss_weights['f'] * loss_f + loss_weights['delta'] * loss_delta
    return (total_loss, (loss_u, loss_f, loss_delta))

losses_and_grad = jit(jax.value_and_grad(loss, 1, has_aux=True))

# ---- cell 9
key, subkey = random.split(key, 2)
ds = KPPDataset(subkey, u0, batch_size=128, N_u=128*5)

# ---- cell 10
# Optimizer
key, subkey = random.split(key, 2)
params = model.init(subkey, t_test, x_test)
tx = optax.adam(learning_rate=0.0003)
opt_state = tx.init(params)


if __name__ == "__main__":
    # ---- cell 11: main train loop
    steps = 4
    losses_total, losses_u, losses_f, losses_delta = [], [], [], []

    for i in range(steps):
        key, subkey1, subkey2 = random.split(key, 3)
        tb, xb, ub = ds.border_batch(subkey1)
        tb_uni, xb_uni = ds.inside_batch(subkey2)

        losses, grads = losses_and_grad((tb, xb, ub, tb_uni, xb_uni),
                                        params,
                                        loss_weights={'u': 2, 'f': 1, 'delta': 1})
        updates, opt_state = tx.update(grads, opt_state)
        params = optax.apply_updates(params, updates)
        total_loss_val, (mse_u_val, mse_f_val, mse_delta_val) = losses
        losses_total.append(total_loss_val)
        losses_u.append(mse_u_val)
        losses_f.append(mse_f_val)
        losses_delta.append(mse_delta_val)

    assert all(bool(np.isfinite(l)) for l in losses_total)
    print("final loss", float(losses_total[-1]))
