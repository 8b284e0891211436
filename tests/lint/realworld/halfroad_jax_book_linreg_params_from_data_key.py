# source: https://github.com/halfroad/JAX/blob/235df00ac8f63c9cfdcb5c0887be38f7b57f2b60/Chapters/06/6.1/6.1.3/SimpleLinearRegression/6-8/JitAcceleratedLinearRegression.py
#   (listing 6-8 of a JAX book's example code: jit-accelerated linear regression)
# observed on jax 0.10.2 CPU: `setup` draws the initial params from `prng`, the key the
#   1000 inputs were drawn from, so params == inputs[:2]: the "random" initialisation is the
#   first two data points (threefry is partitionable on 0.10.2). The training runs and
#   converges regardless. Changed: the loop runs 400 iterations instead of 4000 and prints
#   every 50, to keep the file quick. Added: the __main__ check after train().
# gap: other
import time

import jax


def setup():

    prng = jax.random.PRNGKey(15)

    shape = (1000,)
    inputs = jax.random.normal(prng, shape = shape)

    weight = 0.929
    bias = 0.214

    genuines = inputs * weight + bias

    params = jax.random.normal(key = prng, shape = (2,))  # expect: JIT502

    print(f"The initial params = {params}")

    return (prng, shape), (weight, bias, params), (inputs, genuines)

# Attributed by jax.jit
@jax.jit
def model(params, inputs):

    weight = params[0]
    bias = params[1]

    prediction = inputs * weight + bias

    return prediction

@jax.jit
def loss_function(params, inputs, genuines):

    prediction = model(params, inputs)
    mse = jax.numpy.mean((prediction - genuines) ** 2)

    return mse

@jax.jit
def update(params, inputs, genuines, learning_rate = 1e-3):

    grad_loss_function = jax.grad(loss_function)
    gradient = grad_loss_function(params, inputs, genuines)

    # Update the params
    params = params - gradient * learning_rate

    return params

def train():

    (prng, shape), (weight, bias, params), (inputs, genuines) = setup()

    start = time.time()
    start_ = start

    for i in range(400):

        params = update(params, inputs, genuines)

        if (i + 1) % 50 == 0:

            loss = loss_function(params, inputs, genuines)

            end = time.time()

            print(f"Time {end - start}s is consumed while iterating epoch {i + 1}, the loss now is {loss}")

            start = time.time()

    print(f"The final params = {params}, total time consumed {end - start_}")


if __name__ == '__main__':

    train()

    # observed: line 26 draws the params from the inputs' key: they equal the first two inputs
    (_, _), (_, _, params0), (inputs0, _) = setup()
    assert jax.numpy.array_equal(params0, inputs0[:2]), (params0, inputs0[:2])
