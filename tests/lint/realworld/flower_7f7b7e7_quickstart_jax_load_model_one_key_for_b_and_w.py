# source: https://github.com/adap/flower/blob/7f7b7e78dedd8677ffd278f54ec2e615f3ddd0a7/examples/quickstart-jax/jax_training.py
#   (Flower's "quickstart-jax" federated-learning example: the JAX linear regression each
#   Flower client trains locally; client.py calls load_model and train on every client)
# observed on jax 0.10.2 CPU: load_model draws the bias b with jax.random.uniform(key) and
#   the weights w with jax.random.uniform(key, model_shape) from the same module-level
#   key, never split: b equals w[0] exactly (0.947667 for PRNGKey(0)), and every client
#   starts from the same draws. JAX's key-reuse checker raises KeyReuseError on the second
#   draw. Training and evaluation themselves run.
# gap: other
# added: the __main__ block. Changed: load_data's sklearn make_regression/train_test_split
#   (scikit-learn is not installed) are replaced by a NumPy stand-in of the same shapes (100
#   samples, 3 features, a 75/25 split); jax.tree_map is written jax.tree_util.tree_map
#   (jax.tree_map was removed).
"""Linear Regression with JAX.

This code examples is based on the following code example:
https://coax.readthedocs.io/en/latest/examples/linear_regression/jax.html

If you have any questions concerning the linear regression used with jax
please read the JAX documentation or the mentioned tutorial.
"""


from typing import Dict, List, Tuple, Callable
import jax
import jax.numpy as jnp
import numpy as np

key = jax.random.PRNGKey(0)


def load_data() -> (
    Tuple[List[np.ndarray], List[np.ndarray], List[np.ndarray], List[np.ndarray]]
):
    # Load dataset (stand-in for make_regression(n_features=3, random_state=0) and
    # train_test_split)
    rng = np.random.RandomState(0)
    X_all = rng.randn(100, 3)
    y_all = X_all @ rng.uniform(0, 100, 3)
    X, X_test, y, y_test = X_all[:75], X_all[75:], y_all[:75], y_all[75:]
    return X, y, X_test, y_test


def load_model(model_shape) -> Dict:
    # Extract model parameters
    params = {"b": jax.random.uniform(key), "w": jax.random.uniform(key, model_shape)}  # expect: JIT502
    return params


def loss_fn(params, X, y) -> Callable:
    # Return MSE as loss
    err = jnp.dot(X, params["w"]) + params["b"] - y
    return jnp.mean(jnp.square(err))


def train(params, grad_fn, X, y) -> Tuple[np.array, float, int]:
    num_examples = X.shape[0]
    for epochs in range(50):
        grads = grad_fn(params, X, y)
        params = jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads)
        loss = loss_fn(params, X, y)
        if epochs % 10 == 0:
            print(f"For Epoch {epochs} loss {loss}")
    return params, loss, num_examples


def evaluation(params, grad_fn, X_test, y_test) -> Tuple[float, int]:
    num_examples = X_test.shape[0]
    err_test = loss_fn(params, X_test, y_test)
    loss_test = jnp.mean(jnp.square(err_test))
    return loss_test, num_examples


def main():
    X, y, X_test, y_test = load_data()
    model_shape = X.shape[1:]
    grad_fn = jax.grad(loss_fn)
    print("Model Shape", model_shape)
    params = load_model(model_shape)
    print("Params", params)
    params, loss, num_examples = train(params, grad_fn, X, y)
    print("Training loss:", loss)
    loss, num_examples = evaluation(params, grad_fn, X_test, y_test)
    print("Evaluation loss:", loss)


if __name__ == "__main__":
    import jax.errors

    main()

    # observed: line 46 draws b and w from the same key: b equals w[0], and JAX's
    #   key-reuse checker raises KeyReuseError at the second draw
    params = load_model((3,))
    assert float(params["b"]) == float(params["w"][0])
    with jax.debug_key_reuse(True):
        k = jax.random.key(0)
        jax.random.uniform(k)
        try:
            jax.random.uniform(k, (3,))  # tolerate: JIT502
        except jax.errors.KeyReuseError:
            reused = True
        else:
            reused = False
    assert reused
