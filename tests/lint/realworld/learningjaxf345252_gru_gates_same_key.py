# source: https://github.com/gbcolborne/learning-jax/blob/f3452524db1ccabe25c8b962bc589ab0f30d2728/04_gru_ou_process.py
# observed on jax 0.10.2 CPU: see the observed lines below; GRU init_func splits the same `rng` three times, so the update, reset and output gates get bit-identical W, U and b, and `rng` was already consumed by b_init for the hidden state before the first split
# gap: other
# added: `import matplotlib.pyplot as plt` removed (not installed; only used with --make_plots); the argparse __main__ block replaced by one that inits the network the way main() does and checks the gate weights (raw PRNGKey) and runs the same init under jax_debug_key_reuse with a typed key
# observed: line 65 KeyReuseError under jax_debug_key_reuse with a typed key: rng was consumed by b_init(rng, ...) on the line above the split
# observed: line 71 second split of the same rng gives the same k1, k2, k3: reset_W/reset_U/reset_b are bit-identical to update_W/update_U/update_b
# observed: line 77 third split of the same rng again: out_W/out_U/out_b are bit-identical to update_W/update_U/update_b
"""Simulate a stochastic process, add noise, and try to denoise using
a GRU. Source: `https://roberttlange.github.io/posts/2020/03/blog-post-10/`. """

import argparse, time
from functools import partial
import numpy as onp
import jax.numpy as np
from jax import jit, vmap, value_and_grad, random
from jax.nn import sigmoid
from jax.nn.initializers import glorot_normal, normal
from jax import lax
from jax.example_libraries import optimizers
from jax.example_libraries import stax
from jax.example_libraries.stax import Dense, Relu


def generate_ou_process(n_trials, n, mu, tau, sigma, noise_std, dt):
    """Generate an Ornstein-Uhlenbeck process, and add Gaussian
    noise. Source for the OU process:
    https://ipython-books.github.io/134-simulating-a-stochastic-differential-equation/.

    Args:
    - n_trials: number of independent simulations of OU process
    - n: number of time steps for OU process
    - mu: mean for OU process
    - tau: time constant for OU process
    - sigma: standard deviation for OU process
    - noise_std: standard deviation for noise
    - dt: time step for OU process

    """
    T = dt * n  # Total time.
    t = onp.linspace(0., T, n)  # Vector of times.

    #  Define renormalized variables (to avoid recomputing these constants
    #  at every time step
    sigma_bis = sigma * onp.sqrt(2. / tau)
    sqrtdt = onp.sqrt(dt)

    # Simulate process in a vectorized way
    X = onp.zeros((n_trials, n))
    xi = onp.zeros(n_trials)
    for i in range(n):
        # Update the process independently for all trials
        xi += dt * (-(xi - mu) / tau) + sigma_bis * sqrtdt * onp.random.randn(n_trials)
        X[:,i] = onp.copy(xi)

    # Add noise
    X_tilde = X + onp.random.normal(0, noise_std, X.shape)
    return X, X_tilde


def GRU(out_dim, W_init=glorot_normal(), b_init=normal()):
    def init_func(rng, input_shape):
        """ Initialize the GRU layer for stax """
        hidden = b_init(rng, (input_shape[0], out_dim))

        k1, k2, k3 = random.split(rng, num=3)  # expect: JIT502
        update_W, update_U, update_b = (
            W_init(k1, (input_shape[2], out_dim)),
            W_init(k2, (out_dim, out_dim)),
            b_init(k3, (out_dim,)),)

        k1, k2, k3 = random.split(rng, num=3)  # expect: JIT502
        reset_W, reset_U, reset_b = (
            W_init(k1, (input_shape[2], out_dim)),
            W_init(k2, (out_dim, out_dim)),
            b_init(k3, (out_dim,)),)

        k1, k2, k3 = random.split(rng, num=3)  # expect: JIT502
        out_W, out_U, out_b = (
            W_init(k1, (input_shape[2], out_dim)),
            W_init(k2, (out_dim, out_dim)),
            b_init(k3, (out_dim,)),)
        # Input dim 0 represents the batch dimension
        # Input dim 1 represents the time dimension (before scan moveaxis)
        output_shape = (input_shape[0], input_shape[1], out_dim)
        return (output_shape,
                (hidden,
                 (update_W, update_U, update_b),
                 (reset_W, reset_U, reset_b),
                 (out_W, out_U, out_b),),)

    def apply_func(params, inputs, **kwargs):
        """ Loop over the time steps of the input sequence """
        h = params[0]

        def apply_func_scan(params, hidden, inp):
            """ Perform single step update of the network """
            _, (update_W, update_U, update_b), (reset_W, reset_U, reset_b), (
                out_W, out_U, out_b) = params

            update_gate = sigmoid(np.dot(inp, update_W) +
                                  np.dot(hidden, update_U) + update_b)
            reset_gate = sigmoid(np.dot(inp, reset_W) +
                                 np.dot(hidden, reset_U) + reset_b)
            output_gate = np.tanh(np.dot(inp, out_W)
                                  + np.dot(np.multiply(reset_gate, hidden), out_U)
                                  + out_b)
            output = np.multiply(update_gate, hidden) + np.multiply(1-update_gate, output_gate)
            hidden = output
            return hidden, hidden

        # Move the time dimension to position 0
        inputs = np.moveaxis(inputs, 1, 0)
        f = partial(apply_func_scan, params)
        _, h_new = lax.scan(f, h, inputs)
        return h_new
    return init_func, apply_func


def main(make_plots=False):
    key = random.PRNGKey(42)

    # Make some data
    x_0, mu, tau, sigma, dt = 0, 1, 2, 0.5, 0.1
    noise_std = 0.2
    num_steps, num_trials = 100, 50
    x, x_tilde = generate_ou_process(num_trials, num_steps, mu, tau, sigma, noise_std, dt)
    if make_plots:
        plt.plot(x[0,:], linewidth=2, color="blue", label="clean")
        plt.plot(x_tilde[0,:], linewidth=2, color="orange", label="noisy")
        plt.title("Ornstein-Uhlenbeck Process")
        plt.xlabel("time")
        plt.ylabel("value")
        plt.legend()
        plt.savefig("OU.png")

    # Prepare to train network
    num_dims = 10              # Number of OU timesteps
    batch_size = 64            # Batchsize
    num_hidden_units = 12      # GRU cells in the RNN layer

    # Initialize the network and perform a forward pass
    init_func, gru_rnn = stax.serial(Dense(num_hidden_units), Relu,
                                     GRU(num_hidden_units), Dense(1))
    _, params = init_func(key, (batch_size, num_dims, 1))
    
    def mse_loss(params, inputs, targets):
        """ Calculate the Mean Squared Error Prediction Loss. """
        preds = gru_rnn(params, inputs)
        return np.mean((preds - targets)**2)

    @jit
    def update(params, x, y, opt_state):
        """ Perform a forward pass, calculate the MSE & perform a SGD step. """
        loss, grads = value_and_grad(mse_loss)(params, x, y)
        opt_state = opt_update(0, grads, opt_state)
        return get_params(opt_state), opt_state, loss
    
    learning_rate = 1e-4
    opt_init, opt_update, get_params = optimizers.adam(learning_rate)
    opt_state = opt_init(params)
    num_batches = 1000
    train_loss_log = []
    start_time = time.time()
    for batch_idx in range(num_batches):
        x, x_tilde = generate_ou_process(batch_size, num_dims, mu, tau, sigma, noise_std, dt)
        x_in = np.expand_dims(x_tilde[:, :(num_dims-1)], 2)
        y = np.array(x[:, 1:])
        params, opt_state, loss = update(params, x_in, y, opt_state)
        batch_time = time.time() - start_time
        train_loss_log.append(loss)
        if batch_idx % 100 == 0:
            start_time = time.time()
            print("Batch {} | T: {:0.2f} | MSE: {:0.2f} |".format(batch_idx, batch_time, loss))
    return

if __name__ == "__main__":
    import jax
    # initialise exactly as main() does
    init_func, gru_rnn = stax.serial(Dense(12), Relu, GRU(12), Dense(1))
    _, params = init_func(random.PRNGKey(42), (64, 10, 1))
    hidden, update, reset, out = params[2]
    for name, other in (("reset", reset), ("out", out)):
        same = all(bool(np.array_equal(u, o)) for u, o in zip(update, other))
        print(name, "gate params identical to update gate:", same)
        assert same
    # the first split re-uses a key that b_init already consumed
    import traceback
    jax.config.update("jax_debug_key_reuse", True)
    try:
        GRU(12)[0](random.key(42), (64, 10, 12))
        raise SystemExit("no KeyReuseError")
    except Exception as e:
        assert type(e).__name__ == "KeyReuseError", e
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        print("KeyReuseError at line", frames[-1].lineno)
        assert frames[-1].lineno == 65
    finally:
        jax.config.update("jax_debug_key_reuse", False)
    print("OK")
