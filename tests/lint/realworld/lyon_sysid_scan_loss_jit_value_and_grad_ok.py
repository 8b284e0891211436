# source: https://github.com/forgi86/dl-sysid-lyon2026/blob/73c4f3cef1484aeba6d1642b91ed90cd98ee11e6/code/03_sysid.ipynb
#   (a course notebook, "State-space identification with JAX", of a deep-learning system
#   identification school; cells 2-3, 5, 9, 13-19, 21, 24, 26 and 28 as posted, plots left out)
# observed on jax 0.10.2 CPU: runs clean. loss_grad_fn = jax.jit(jax.value_and_grad(loss_fn))
#   is built once, before the training loop, and every iteration reuses one compilation; the
#   simulation inside the loss is the lax.scan version (sim_scan), while the Python-loop
#   `sim` (a loop over us.shape[0], a static length) runs only eagerly, to check sim_scan
#   and to simulate the test set. The Cascaded Tanks benchmark that
#   nonlinear_benchmarks.Cascaded_Tanks downloads is replaced by a stand-in namespace holding
#   a random input and the output of a small tank model of the same length (1024 samples,
#   sampling time 4 s); matplotlib is not imported. Added: the stand-in and the __main__ block.
# gap: per-call-recompile
import types

import numpy as np
import jax
import jax.numpy as jnp
import jax.random as jr
import optax
from tqdm import tqdm


def _cascaded_tanks_stand_in(n=1024, seed=0):
    rs = np.random.RandomState(seed)
    u = np.repeat(rs.uniform(2.0, 8.0, size=n // 64), 64)[:, None]
    x1 = x2 = 5.0
    y = []
    for t in range(n):
        x1 = x1 + 0.05 * (-np.sqrt(x1) + 0.3 * u[t, 0])
        x2 = x2 + 0.05 * (np.sqrt(x1) - np.sqrt(x2))
        y.append([x2])
    data = lambda u, y: types.SimpleNamespace(u=u, y=np.array(y), sampling_time=4.0)
    return data(u, y), data(u[::-1].copy(), y[::-1])


nonlinear_benchmarks = types.SimpleNamespace(
    Cascaded_Tanks=lambda atleast_2d=True: _cascaded_tanks_stand_in())

key = jr.key(17)
keys = jr.split(key, 5)

# Other benchmarks available, see https://www.nonlinearbenchmark.org/
# train, test = nonlinear_benchmarks.WienerHammerBenchMark(atleast_2d=True) The Wiener-Hammerstein benchmark
train, test = nonlinear_benchmarks.Cascaded_Tanks(atleast_2d=True) 
u_tr = train.u.astype(jnp.float32)
y_tr = train.y.astype(jnp.float32)
t_tr = train.sampling_time * jnp.arange(train.u.shape[0])
u_te = test.u.astype(jnp.float32)
y_te = test.y.astype(jnp.float32)
t_te = test.sampling_time * jnp.arange(test.u.shape[0])

# Scale inputs and outputs for better training performance
# In production code, I'd use sklearn.preprocessing.StandardScaler or similar
# Here we implement standard scaling manually for educational purposes

u_mean = jnp.mean(u_tr)
u_std = jnp.std(u_tr)
u_tr_sc = (u_tr - u_mean) / u_std
u_te_sc = (u_te - u_mean) / u_std

y_mean = jnp.mean(y_tr)
y_std = jnp.std(y_tr)
y_tr_sc = (y_tr - y_mean) / y_std

# Initialize all parameters and organize them in a dictionary
nu = 1; nx = 2; ny = 1; nh = 16

params = {
    "W1": jr.normal(keys[0], shape=(nh, nu + nx)),  # nu + nx inputs to the network
    "b1": jr.normal(keys[1], shape=(nh,)),
    "W2": jr.normal(keys[2], shape=(nx, nh)) * 1e-3,  # nx outputs from the network
    "b2": jr.normal(keys[3], shape=(nx,)) * 1e-3,
    
    "C": jr.normal(keys[4], shape=(ny, nx)),  # nx inputs and ny outputs
}

# Define state-update and output functions
def f(p, x, u):
    xu = jnp.concatenate([x, u])
    z = jnp.tanh(p["W1"] @ xu + p["b1"])
    x_new = x + p["W2"] @ z + p["b2"]
    return x_new

def g(p, x):
    y = p["C"] @ x
    return y

# Define simulation function
def sim(p, x, us):
    # x: (nx) initial state
    # us:(T, nu) input sequence
    y_sim = []
    for t in range(us.shape[0]):
        y_sim.append(g(p, x))
        x = f(p, x, us[t])

    # (T, ny) simulated output sequence
    y_sim = jnp.stack(y_sim)
    return y_sim 

# Equivalent implementation using jax.lax.scan (generally faster)
def sim_scan(p, x, us):
    def fg_func(x, u_t):
        return f(p, x, u_t), g(p, x)  # x_new, y

    xf, y_sim = jax.lax.scan(fg_func, x, us)
    return y_sim

# check equivalence of sim and sim_scan...    
jnp.allclose(sim(params, jnp.zeros((nx,)), u_tr_sc), sim_scan(params, jnp.zeros((nx,)), u_tr_sc))

opt_vars = {"params": params, "x0": jnp.zeros((nx,))}

def loss_fn(ov, ys, us):
    y_sim = sim_scan(ov["params"], ov["x0"], us)
    return jnp.mean((ys - y_sim) ** 2)

loss_fn(opt_vars, y_tr_sc, u_tr_sc)

# Setup optimizer
lr = 1e-3
iters = 2_000
optimizer = optax.adam(learning_rate=lr)
opt_state = optimizer.init(opt_vars)
loss_grad_fn = jax.jit(jax.value_and_grad(loss_fn))

# Training loop
LOSS = []
for iter in (pbar := tqdm(range(iters))):
    loss_val, grads = loss_grad_fn(opt_vars, y_tr_sc, u_tr_sc)
    updates, opt_state = optimizer.update(grads, opt_state)
    opt_vars = optax.apply_updates(opt_vars, updates)
    LOSS.append(loss_val)
    if iter % 100 == 0:
        pbar.set_postfix_str(f"Loss step {iter}: {loss_val}")

y_te_sim = sim(opt_vars["params"], opt_vars["x0"], u_te_sc)
y_te_sim = y_te_sim * y_std + y_mean

rmse = jnp.sqrt(jnp.mean((y_te_sim - y_te) ** 2))
rmse

y_tr_sim = sim(opt_vars["params"], opt_vars["x0"], u_tr_sc)
y_tr_sim = y_tr_sim * y_std + y_mean


if __name__ == "__main__":
    assert loss_grad_fn._cache_size() == 1
    assert bool(jnp.allclose(sim(opt_vars["params"], opt_vars["x0"], u_tr_sc[:50]),
                             sim_scan(opt_vars["params"], opt_vars["x0"], u_tr_sc[:50]), atol=1e-5))
    assert float(LOSS[-1]) < float(LOSS[0])
    assert y_te_sim.shape == y_te.shape and bool(jnp.isfinite(rmse))
