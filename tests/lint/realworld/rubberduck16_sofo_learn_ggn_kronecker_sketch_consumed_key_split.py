# source: https://github.com/RubberDuck16/Second-Order-Forward-Mode-Optimisation/blob/c29e3b1772d4d0f47f87c302e58288167d942468/MAIN_ALGORITHMS.py
#   (research code on second-order forward-mode optimisation, SOFO: learn_G_multiple_layers
#   fits Kronecker factors of the Gauss-Newton matrix from random sketches with a jitted
#   optax step; running_tests.py calls it with the GGN of a shallow network)
# observed on jax 0.10.2 CPU: every iteration starts with `_, key = jax.random.split(key)`
#   on the key that the previous iteration already split into `keys`. random.split(key)
#   gives the first two keys of random.split(key, 3), so the new carried key is that
#   iteration's keys[1], the key the layer-1 block was drawn from whenever the coin chose
#   layer 1: a key that drew a normal block is split again and seeds the next iteration's
#   coin and blocks. The jitted `update` is fine (one compilation for the run).
# gap: other
# added: imports; sketch, as in the same file; inputs built the way running_tests.py builds
#   them (random_params, shallow_nn, output_from_flat_params and compute_GGN, copied from
#   it, for a network with 2 inputs, 4 hidden units and 1 output); 40 iterations instead
#   of 25000; the __main__ block, which records the keys given to jax.random.normal and
#   jax.random.split.
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import jacobian, random
from jax.flatten_util import ravel_pytree


def sketch(g_list, v):
    """
    Returns a K x K sketch.
    Assume that v is input as k x n_left x n_right.
    """
    full_sketch = 0.0
    for g in g_list:
        left = g["left"] @ g["left"].T
        right = g["right"] @ g["right"].T
        full_sketch += jnp.einsum('knm, ni, mj, fij -> kf', v, left, right, v)
    return full_sketch


def learn_G_multiple_layers(layers, true_G, iters, K=10, learning_rate=1e-4):
    """
    layers: list of tuples of (n_left, n_right) for each layer
    true_G: P x P full GGN matrix
    iters: number of iterations
    K: sketching dimension
    """
    G_est_initial = []                          # initial guess of G (identity matrices)

    for n_left, n_right in layers:
        G_est_initial.append([{"left": jnp.eye(n_left), "right": jnp.eye(n_right)}])

    optimizer = optax.adam(learning_rate=learning_rate, b2=0.99)
    params = G_est_initial
    opt_state = optimizer.init(params)

    def loss_fn(V_blocks, V, G_est):
        sketch_true = V.T @ true_G @ V

        res = 0.0
        for i in range(len(V_blocks)):
            res += sketch(G_est[i], V_blocks[i])

        return jnp.mean((res - sketch_true)**2)


    @jax.jit
    def update(params, opt_state, V_blocks, V):
        def compute_loss(params):
            return loss_fn(V_blocks, V, params)

        loss, grads = jax.value_and_grad(compute_loss)(params)
        updates, opt_state = optimizer.update(grads, opt_state)
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss

    losses = []
    losses1, losses2 = [], []
    key = jax.random.PRNGKey(15)

    for t in range(iters):
        V_blocks, holder = [], []
        _, key = jax.random.split(key)  # expect: JIT502
        keys = jax.random.split(key, len(layers)+1)

        coin_flip = jax.random.bernoulli(keys[0], 0.5, shape=(1,))
        # coin flip being false means we are sampling from layer 1, true means layer 2

        for i in range(len(layers)):
            n_left, n_right = layers[i]

            if i == coin_flip:
                block = jax.random.normal(keys[i+1], shape=(K, n_left, n_right))
            else:
                block = np.zeros((K, n_left, n_right))

            V_blocks.append(block)
            holder.append(block.reshape(-1, n_left*n_right).T)

        V = np.concatenate(holder, axis=0)
        params, opt_state, loss = update(params, opt_state, V_blocks, V)

        losses.append(loss)
        if coin_flip:
            # layer 2 losses
            losses2.append(loss)
        else:
            # layer 1 losses
            losses1.append(loss)

        if t % 100 == 0:
            print(f"Iteration: {t}, Loss: {loss} for layer {coin_flip}")
    return params, losses, losses1, losses2


# ---- from running_tests.py: the GGN of a shallow network
def random_params(di, Nh, do, key):
    w_key, c_key = random.split(key)
    C = 1/jnp.sqrt((di+1)) * random.normal(c_key, (Nh, di + 1))
    W = 1/jnp.sqrt(Nh) * random.normal(w_key, (do, Nh))
    return {"C": C, "W": W}

def shallow_nn(x, params):
    x = jnp.vstack((x, jnp.ones((1, x.shape[1]))))           # Add 1 as the bias input
    h = jnp.tanh(jnp.matmul(params["C"], x))
    y = jnp.matmul(params["W"], h)
    return y

def output_from_flat_params(flat_params, unravel_fn, x):
    params = unravel_fn(flat_params)
    return shallow_nn(x, params)        # shape: (do, no_of_samples)

def compute_GGN(current_flat_params, unravel_fn, x):
    no_of_samples = x.shape[1]
    J = jacobian(output_from_flat_params)(current_flat_params, unravel_fn, x)       # shape: (do, no_of_samples, P)
    J = J.reshape(-1, current_flat_params.shape[0])                                 # shape: (do * no_of_samples, P)
    GGN = 2/no_of_samples * (J.T @ J)
    return GGN


di, Nh, do = 2, 4, 1
layers = [(Nh, di + 1), (do, Nh)]
x = random.normal(random.PRNGKey(1), (di, 50))
current_theta, unravel_fn = ravel_pytree(random_params(di, Nh, do, random.PRNGKey(0)))
current_GGN = compute_GGN(current_theta, unravel_fn, x)


if __name__ == "__main__":
    normal_keys, split_keys = [], []
    _normal, _split = jax.random.normal, jax.random.split
    def recording_normal(key, *args, **kwargs):
        normal_keys.append(np.asarray(key))
        return _normal(key, *args, **kwargs)
    def recording_split(key, *args, **kwargs):
        split_keys.append(np.asarray(key))
        return _split(key, *args, **kwargs)
    jax.random.normal, jax.random.split = recording_normal, recording_split
    try:
        learned_G, losses, _, _ = learn_G_multiple_layers(layers, current_GGN, iters=40, K=10, learning_rate=1e-4)
    finally:
        jax.random.normal, jax.random.split = _normal, _split
    assert all(np.isfinite(losses))
    # observed: line 80 splits a key already split: the carried key then equals a key
    # that drew a normal sketch block, and that key is split again
    reused = [k for k in normal_keys if any((k == s).all() for s in split_keys)]
    assert reused, "no key that drew a block was split again"
