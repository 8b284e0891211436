# source: https://github.com/QuantEcon/lecture-jax/blob/f25f07f9a201f2bf236716683163a4aa758886a8/lectures/jax_nn.md
#   (QuantEcon's "Neural Network Regression with JAX" lecture: the JAX half, after the
#   lecture's PRs #262/#263 jitted the training routines with the config static)
# observed on jax 0.10.2 CPU: the three training routines run under jit with `config` (a
#   NamedTuple of Python numbers and a tuple, hashable) static: `config.epochs` bounds
#   lax.fori_loop, `config.learning_rate` builds the optax solvers inside the trace, and the
#   list-of-NamedTuple parameters are a pytree carried through the loop; f's Python loop runs
#   over the (static) list of layers. The warm-up call and the timed call share one
#   compilation per routine (cache size 1), and every routine lowers the validation MSE.
# gap: static-hashability
# added: the imports the lecture's first cell makes, and the checks at the end of the
#   __main__ block; the lecture's cells run in order under __main__. Left out: the Keras half
#   of the lecture (its own model and timing), the plots and the summary table.
import jax
import jax.numpy as jnp
from time import time
from typing import NamedTuple
from functools import partial
import optax


class Config(NamedTuple):
    epochs: int = 4000             # Number of passes through the data set
    learning_rate: float = 0.001   # Learning rate for gradient descent
    layer_sizes: tuple = (1, 10, 10, 10, 1)  # Layer sizes
    seed: int = 14                 # Random seed for data generation


def generate_data(
        key: jax.Array,         # JAX random key
        data_size: int = 400,   # Sample size
        x_min: float = 0.0,     # Minimum x value
        x_max: float = 5.0      # Maximum x value
    ):
    """
    Generate synthetic regression data.
    """
    x = jnp.linspace(x_min, x_max, num=data_size)
    ϵ = 0.2 * jax.random.normal(key, shape=(data_size,))
    y = x**0.5 + jnp.sin(x) + ϵ
    # Return observations as column vectors
    x = jnp.reshape(x, (data_size, 1))
    y = jnp.reshape(y, (data_size, 1))
    return x, y


class LayerParams(NamedTuple):
    """
    Stores parameters for one layer of the neural network.

    """
    W: jax.Array     # weights
    b: jax.Array     # biases


def initialize_layer(in_dim, out_dim, key):
    """
    Initialize weights and biases for a single layer of the network.
    Use He initialization for weights and ones for biases.
    """
    W = jax.random.normal(key, shape=(in_dim, out_dim)) * jnp.sqrt(2 / in_dim)
    b = jnp.ones((1, out_dim))
    return LayerParams(W, b)


def initialize_network(
        key: jax.Array,     # JAX random key
        config: Config      # contains configuration data
    ):
    """
    Build a network by initializing all of the parameters.
    A network is a list of LayerParams instances, each
    containing a weight-bias pair (W, b).
    """
    layer_sizes = config.layer_sizes
    params = []
    for i in range(len(layer_sizes) - 1):
        key, subkey = jax.random.split(key)
        layer = initialize_layer(
            layer_sizes[i],      # in dimension for layer
            layer_sizes[i + 1],  # out dimension for layer
            subkey
        )
        params.append(layer)
    return params


def f(
        θ: list,                        # Network parameters (pytree)
        x: jax.Array,                 # Input data (row vector)
        σ: callable = jnp.tanh          # Activation function
    ):
    """
    Perform a forward pass over the network to evaluate f(θ, x).
    """
    *hidden, last = θ
    for layer in hidden:
        x = σ(x @ layer.W + layer.b)
    x = x @ last.W + last.b
    return x 


def loss_fn(
        θ: list,            # Network parameters (pytree)
        x: jax.Array,     # Input data
        y: jax.Array      # Target data
    ):
    return jnp.mean((f(θ, x) - y)**2)


loss_gradient = jax.grad(loss_fn)


def update_parameters(
        θ: list,            # Current parameters (pytree)
        x: jax.Array,     # Input data
        y: jax.Array,     # Target data
        config: Config      # contains configuration data
    ):
    """
    Update the parameter pytree using gradient descent.

    """
    λ = config.learning_rate

    # Specify the update rule
    def gradient_descent_step(p, g):
        """
        A rule for updating parameter vector p given gradient vector g.
        It will be applied to each leaf of the pytree of parameters.
        """
        return p - λ * g

    gradient = loss_gradient(θ, x, y)

    # Use tree.map to apply the update rule to the parameter vectors
    θ_new = jax.tree.map(gradient_descent_step, θ, gradient)
    return θ_new


@partial(jax.jit, static_argnames=['config'])
def train_jax_model(
        θ: list,                    # Initial parameters (pytree)
        x: jax.Array,             # Training input data
        y: jax.Array,             # Training target data
        config: Config              # contains configuration data
    ):
    """
    Train model using gradient descent.
    """
    def update(_, θ):
        θ_new = update_parameters(θ, x, y, config)
        return θ_new

    θ_final = jax.lax.fori_loop(0, config.epochs, update, θ)
    return θ_final


@partial(jax.jit, static_argnames=['config'])
def train_jax_optax(
        θ: list,                    # Initial parameters (pytree)
        x: jax.Array,             # Training input data
        y: jax.Array,             # Training target data
        config: Config              # contains configuration data
    ):
    " Train model using Optax SGD optimizer. "
    epochs = config.epochs
    learning_rate = config.learning_rate
    solver = optax.sgd(learning_rate)
    opt_state = solver.init(θ)

    def update(_, loop_state):
        θ, opt_state = loop_state
        grad = loss_gradient(θ, x, y)
        updates, new_opt_state = solver.update(grad, opt_state, θ)
        θ_new = optax.apply_updates(θ, updates)
        new_loop_state = θ_new, new_opt_state
        return new_loop_state

    initial_loop_state = θ, opt_state
    final_loop_state = jax.lax.fori_loop(
        0, epochs, update, initial_loop_state
    )
    θ_final, _ = final_loop_state
    return θ_final


@partial(jax.jit, static_argnames=['config'])
def train_jax_optax_adam(
        θ: list,                    # Initial parameters (pytree)
        x: jax.Array,             # Training input data
        y: jax.Array,             # Training target data
        config: Config              # contains configuration data
    ):
    " Train model using Optax Adam optimizer. "
    epochs = config.epochs
    learning_rate = config.learning_rate
    solver = optax.adam(learning_rate)
    opt_state = solver.init(θ)

    def update(_, loop_state):
        θ, opt_state = loop_state
        grad = loss_gradient(θ, x, y)
        updates, new_opt_state = solver.update(grad, opt_state, θ)
        θ_new = optax.apply_updates(θ, updates)
        return (θ_new, new_opt_state)

    initial_loop_state = θ, opt_state
    θ_final, _ = jax.lax.fori_loop(
        0, epochs, update, initial_loop_state
    )
    return θ_final


if __name__ == "__main__":
    config = Config()
    key = jax.random.key(config.seed)
    key_train, key_validate = jax.random.split(key)
    x_train, y_train = generate_data(key_train)
    x_validate, y_validate = generate_data(key_validate)

    # Reset parameter vector
    config = Config()
    param_key = jax.random.key(1234)
    θ = initialize_network(param_key, config)
    initial_mse = loss_fn(θ, x_validate, y_validate)

    # Warmup run to trigger JIT compilation
    train_jax_model(θ, x_train, y_train, config)

    # Reset and time the actual run
    θ = initialize_network(param_key, config)
    start_time = time()
    θ = train_jax_model(θ, x_train, y_train, config)
    θ[0].W.block_until_ready()  # Ensure computation completes
    jax_runtime = time() - start_time

    jax_mse = loss_fn(θ, x_validate, y_validate)
    jax_train_mse = loss_fn(θ, x_train, y_train)
    print(f"Trained model with JAX in {jax_runtime:.2f} seconds.")
    print(f"Final MSE on validation data = {jax_mse:.6f}")

    # Reset parameter vector
    θ = initialize_network(param_key, config)

    # Warmup run to trigger JIT compilation
    train_jax_optax(θ, x_train, y_train, config)

    # Reset and time the actual run
    θ = initialize_network(param_key, config)
    start_time = time()
    θ = train_jax_optax(θ, x_train, y_train, config)
    θ[0].W.block_until_ready()  # Ensure computation completes
    optax_sgd_runtime = time() - start_time

    optax_sgd_mse = loss_fn(θ, x_validate, y_validate)
    optax_sgd_train_mse = loss_fn(θ, x_train, y_train)
    print(
        "Trained model with JAX and Optax SGD "
        f"in {optax_sgd_runtime:.2f} seconds."
    )
    print(f"Final MSE on validation data = {optax_sgd_mse:.6f}")

    # Reset parameter vector
    θ = initialize_network(param_key, config)

    # Warmup run to trigger JIT compilation
    train_jax_optax_adam(θ, x_train, y_train, config)

    # Reset and time the actual run
    θ = initialize_network(param_key, config)
    start_time = time()
    θ = train_jax_optax_adam(θ, x_train, y_train, config)
    θ[0].W.block_until_ready()  # Ensure computation completes
    optax_adam_runtime = time() - start_time

    optax_adam_mse = loss_fn(θ, x_validate, y_validate)
    optax_adam_train_mse = loss_fn(θ, x_train, y_train)
    print(f"Trained model with JAX and Optax Adam in {optax_adam_runtime:.2f} seconds.")
    print(f"Final MSE on validation data = {optax_adam_mse:.6f}")

    # added checks: one compilation per routine for the two calls, and training helps
    for fn in (train_jax_model, train_jax_optax, train_jax_optax_adam):
        assert fn._cache_size() == 1, fn._cache_size()
    for mse in (jax_mse, optax_sgd_mse, optax_adam_mse):
        assert mse < initial_mse, (mse, initial_mse)
