# source: https://github.com/saiyedduri/Machine_learning_essentials/blob/eccb90d33e82cfee1365c10ad4d3d78309a9f4be/large_scale_ml/lab_3_parallelization_in_jax.ipynb
#   (a university lab, "Large-scale ML" Lab 3 "Parallelization in JAX": the single-device
#   baseline of its data-parallel exercise, cells 101-103)
# observed on jax 0.10.2 CPU: runs clean; grad_loss = jax.jit(jax.grad(loss)) is made once at
#   module level and compiled by the warm-up call, so the 100 steps of `train` reuse one
#   compilation (the Python loops in `forward` and `init_network_params` run over a
#   list of layers, not over traced values); the data and the parameters come from
#   distinct subkeys of one split, and gen_data splits its key again before its two draws.
#   Kept: cells 101-103 as written (the CPU branch of cell 102 runs: n = 1024, layers
#   [1, 1024, 1024, 1]); the cells before them (sharding demos, "Your code here"
#   exercises) are left out. Added: the __main__ block.
# gap: per-call-recompile
import os
os.environ["XLA_FLAGS"] = '--xla_force_host_platform_device_count=8'

from jax.sharding import PartitionSpec as P
import jax.numpy as jnp
import jax
from tqdm import tqdm

# Define population line
def f(x):
    return jnp.sin(6*x) - .5 * x**2

def gen_data(key, f, n=100, sigma=0.1, xmin=0.0, xmax=2.0):
    keys = jax.random.split(key, 2)
    x = jax.random.uniform(keys[0], shape=(n, 1), minval=xmin, maxval=xmax)
    y = f(x) + sigma * jax.random.normal(keys[1], shape=(n, 1))
    return x, y

def random_layer_params(n_in, n_out, key, scale=1e-1):
    w_key, b_key = jax.random.split(key)
    # Weight matrix
    w = scale * jax.random.normal(w_key, (n_in, n_out))
    # Bias vector
    b = scale * jax.random.normal(b_key, (n_out,))
    return w, b

def init_network_params(sizes, key):
    keys = jax.random.split(key, len(sizes) - 1)
    return [random_layer_params(m, n, k) for m, n, k in zip(sizes[:-1], sizes[1:], keys)]

def forward(params, x):
    for w, b in params[:-1]:
        outputs = jnp.dot(x, w) + b
        x = jnp.tanh(outputs)

    final_w, final_b = params[-1]
    out = jnp.dot(x, final_w) + final_b
    return out
    
def loss(params, x, y):
    return jnp.mean(jnp.square(forward(params, x) - y))
    
grad_loss = jax.jit(jax.grad(loss, argnums=0))

def train(params, x, y, epochs=100, step_size=1e-3):

    for _ in tqdm(range(epochs)):
        grads = grad_loss(params, x, y)
        params = [(W - step_size * dW, b - step_size * db)
                  for (W, b), (dW, db) in zip(params, grads)]
    return params


global_key = jax.random.key(seed=0)
gen_key, *keys = jax.random.split(global_key,3)

if jax.devices()[0].device_kind == 'cpu':
    n = 1024
    layer_sizes = [1, 1024, 1024, 1]
else:
    n = 8192*2
    layer_sizes = [1, 8192, 8192, 8192, 1]

x, y = gen_data(keys[0], f, n=n)
params = init_network_params(layer_sizes, keys[1])

# Execute grad_loss once to compile function
grad_loss(params, x, y);

params_single = train(params, x, y)


if __name__ == "__main__":
    assert grad_loss._cache_size() == 1
    assert float(loss(params_single, x, y)) < float(loss(params, x, y))
    assert [w.shape for w, _ in params_single] == [(1, 1024), (1024, 1024), (1024, 1)]
