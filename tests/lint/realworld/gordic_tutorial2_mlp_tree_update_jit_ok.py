# source: https://github.com/gordicaleksa/get-started-with-JAX/blob/bff1ac41b2e671deedb04802d210b7283a889405/Tutorial_2_JAX_HeroPro%2B_Colab.ipynb
#   (a popular JAX video-tutorial notebook, "ML with JAX: from Hero to Hero Pro+": cells 24-26,
#   "training a toy MLP", without the final plot)
# observed on jax 0.10.2 CPU: runs clean. The parameters are a list of dicts of NumPy arrays
#   initialised outside jit with np.random (host-side, once); update is jitted once at the
#   top level and reads the module constant lr, never rebound; forward's loop over the
#   list of layers unrolls over a Python list of fixed length. The 5000 steps share one
#   compilation (the first call, with NumPy leaves, adds a second entry to jit's dispatch
#   cache but no second trace) and the loss of the parabola fit falls. `jax.tree_multimap` and
#   `jax.tree_map` (removed) are spelled `jax.tree.map`; matplotlib is not imported.
#   Added: the imports of the notebook's first cell that these cells use, and the __main__
#   block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
import numpy as np

from jax import grad, jit, vmap, pmap

def init_mlp_params(layer_widths):
    params = []

    # Allocate weights and biases (model parameters)
    # Notice: we're not using JAX's PRNG here - doesn't matter for this simple example
    for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
        params.append(
            dict(weights=np.random.normal(size=(n_in, n_out)) * np.sqrt(2/n_in),
                biases=np.ones(shape=(n_out,))
        )
    )

    return params

# Instantiate a single input - single output, 3 layer (2 hidden layers) deep MLP
params = init_mlp_params([1, 128, 128, 1])

# Another example of how we might use tree_map - verify that shapes make sense:
jax.tree.map(lambda x: x.shape, params)

def forward(params, x):
    *hidden, last = params

    for layer in hidden:
        x = jax.nn.relu(jnp.dot(x, layer['weights']) + layer['biases'])

    return jnp.dot(x, last['weights']) + last['biases']

def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)  # MSE loss

lr = 0.0001

@jit  # notice how we do jit only at the highest level - XLA will have plenty of space to optimize
def update(params, x, y):

    # Note that grads is a pytree with the same structure as params.
    # grad is one of the many JAX functions that has built-in support for pytrees!
    grads = jax.grad(loss_fn)(params, x, y)

    # Task: analyze grads and make sure it has the same structure as params

    # SGD update
    return jax.tree.map(
        lambda p, g: p - lr * g, params, grads  # for every leaf i.e. for every param of MLP
    )

xs = np.random.normal(size=(128, 1))
ys = xs ** 2  # let's learn how to regress a parabola

# Task experiment a bit with other functions (polynomials, sin, etc.)

num_epochs = 5000
for _ in range(num_epochs):
    params = update(params, xs, ys)  # again our lovely pattern


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for _ in range(3):
        params = update(params, xs, ys)
    assert compiles == [], compiles
    fresh = init_mlp_params([1, 128, 128, 1])
    assert float(loss_fn(params, xs, ys)) < float(loss_fn(fresh, xs, ys))
