# source: https://github.com/chenxin199305/jax_tutorial/blob/bfa3ac23e8f0c002868b18cd2fe7986db4fa7f33/src/jax_tutorial/tutorial_02_nn.py
# observed on jax 0.10.2 CPU: loss_fn ignores its traced `params` argument and reads model.params through model.forward, so inside the jax.grad trace the parameters are constants: every gradient is exactly zero and training never changes the loss
# gap: stale-state-attributes
# observed: line 49 model.forward reads model.params (constants to the jax.grad trace) instead of the traced params argument; jax.grad returns all-zero gradients and the loss after 201 training steps equals the initial loss
# added: sklearn's load_iris/OneHotEncoder/train_test_split/StandardScaler replaced by a small synthetic 3-class data set built with numpy (the user's line `y = encoder.fit_transform(X)` one-hot encoded X by mistake; here y is one-hot of the labels); the module-level script moved under __main__ with fewer epochs; the harness checks the gradients
import jax
import jax.numpy as jnp
import numpy as np


# input -> hidden layer 1 -> hidden layer 2 -> output
class NeuralNetwork:
    def __init__(self, input_dim, hidden_dim1, hidden_dim2, output_dim):
        self.params = {
            "W1": jax.random.normal(jax.random.PRNGKey(0), (input_dim, hidden_dim1)),
            "b1": jnp.zeros((hidden_dim1,)),
            "W2": jax.random.normal(jax.random.PRNGKey(1), (hidden_dim1, hidden_dim2)),
            "b2": jnp.zeros((hidden_dim2,)),
            "W3": jax.random.normal(jax.random.PRNGKey(2), (hidden_dim2, output_dim)),
            "b3": jnp.zeros((output_dim,))
        }

    def forward(self, x):
        # Layer 1
        z1 = jnp.dot(x, self.params["W1"]) + self.params["b1"]
        a1 = jax.nn.relu(z1)

        # Layer 2
        z2 = jnp.dot(a1, self.params["W2"]) + self.params["b2"]
        a2 = jax.nn.relu(z2)

        # Output layer
        z3 = jnp.dot(a2, self.params["W3"]) + self.params["b3"]
        return z3

    def predict(self, x):
        logits = self.forward(x)
        return jnp.argmax(logits, axis=1)


# Loss function
def cross_entropy_loss(logits, labels):
    return -jnp.mean(jnp.sum(labels * jax.nn.log_softmax(logits), axis=1))


# Gradient function
def compute_gradients(model, x, y):
    def loss_fn(params):
        logits = model.forward(x)  # expect: JIT201
        return cross_entropy_loss(logits, y)

    grads = jax.grad(loss_fn)(model.params)
    return grads


# Update parameters
def update_params(params, grads, learning_rate=0.01):
    for key in params.keys():
        params[key] -= learning_rate * grads[key]
    return params


# Training function
def train(model, x_train, y_train, epochs=1000, learning_rate=0.01):
    for epoch in range(epochs):
        grads = compute_gradients(model, x_train, y_train)
        model.params = update_params(model.params, grads, learning_rate)
        if epoch % 100 == 0:
            logits = model.forward(x_train)
            loss = cross_entropy_loss(logits, y_train)
            print(f"Epoch {epoch}, Loss: {loss:.4f}")


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=120)
    X_train = rng.normal(size=(120, 4)).astype(np.float32) + labels[:, None]
    y_train = np.eye(3, dtype=np.float32)[labels]

    input_dim = X_train.shape[1]
    model = NeuralNetwork(input_dim, 10, 10, y_train.shape[1])
    loss0 = cross_entropy_loss(model.forward(X_train), y_train)

    grads = compute_gradients(model, X_train, y_train)
    assert all(float(jnp.abs(g).max()) == 0.0 for g in grads.values()), grads

    train(model, X_train, y_train, epochs=201, learning_rate=0.1)
    loss1 = cross_entropy_loss(model.forward(X_train), y_train)
    assert float(loss0) == float(loss1) and float(loss0) > 0.1, (loss0, loss1)
    print("all gradients are zero; loss unchanged after training:", float(loss0), float(loss1))
