# source: https://github.com/enerrio/jax-101/blob/484619d0774cab1608b512f041ef06bfed2428d5/exercise-solutions.ipynb
#   (the "Jax 101" tutorial's exercise solutions, Exercise 7 "Neural Networks with Jax":
#   the data cell, the weights cell and the gradient-descent cell, as written). Added: the
#   notebook's first-cell imports trimmed to those used; the matplotlib plots and the GIF
#   cells are left out; the training cell is moved into the __main__ block with its
#   2000 untraced steps cut to 20 (each step traces value_and_grad anew, minutes on CPU).
# observed on jax 0.10.2 CPU: the weights cell splits `key` again, the key that the data
#   cell already split into xkey0 and xkey1, so Wkey1 == xkey0 and Wkey2 == xkey1: the
#   first layer's weights are drawn from the key of the class-0 data and the second
#   layer's from the key of the class-1 data. The training loop itself runs.
# gap: other
import jax
from jax import random
import jax.numpy as jnp

## Create data for binary classification task
# Parameters for the random data
n = 50
num_classes = 2

# Generate random data points
key = random.key(0)
xkey0, xkey1 = random.split(key, 2)

mean_class_0 = jnp.array([-2, -2])  # mean for class 0
mean_class_1 = jnp.array([2, 2])  # mean for class 1
std_dev = 1.0  # standard deviation for both classes

# Generate data for class 0
X_class_0 = random.normal(xkey0, (n, 2)) * std_dev + mean_class_0
y_class_0 = jnp.zeros(n)  # label 0 for class 0

# Generate data for class 1
X_class_1 = random.normal(xkey1, (n, 2)) * std_dev + mean_class_1
y_class_1 = jnp.ones(n)  # label 1 for class 1

# Assign random class labels (0 or 1)
# y = random.randint(ykey, n, 0, num_classes)
X = jnp.vstack((X_class_0, X_class_1))
y = jnp.expand_dims(jnp.hstack((y_class_0, y_class_1)), -1)
print(f"X shape: {X.shape}")
print(f"y shape: {y.shape}")

# Build network weights
Wkey1, Wkey2 = random.split(key, 2)  # expect: JIT502
W1 = random.normal(Wkey1, (n*2, 32)) * 1e-2
b1 = jnp.ones((32,1))

W2 = random.normal(Wkey2, (32, n*2)) * 1e-2
b2 = jnp.ones((n*2,1))

params = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}


# Train via gradient descent
def predict(params, x):
    x_h = jax.nn.relu(params["W1"].T @ x + params["b1"])
    preds = jax.nn.sigmoid(params["W2"].T @ x_h + params["b2"])
    return preds

# @jit
def loss_fn(params, x, y):
    preds = predict(params, x)
    return jnp.square(preds - y).mean()


if __name__ == "__main__":
    # observed: line 45 splits `key` again, which the data cell already split: the weight keys are
    # the data keys
    assert bool(jnp.all(random.key_data(Wkey1) == random.key_data(xkey0)))
    assert bool(jnp.all(random.key_data(Wkey2) == random.key_data(xkey1)))
    print("weight keys equal the data keys")

    steps = 20  # 2000 in the notebook
    lr = 0.01
    losses = jnp.empty((steps,))
    predictions = []
    for i in range(steps):
        preds = predict(params, X)
        if (i % 10) == 0:
            predictions.append(preds)
        # calculate loss + grad
        loss_value, grad_value = jax.value_and_grad(loss_fn)(params, preds, y)
        losses = losses.at[i].set(loss_value)
        # update weights
        for param in params:
            params[param] += -grad_value[param]*lr
    print(losses[0], losses[-1])
