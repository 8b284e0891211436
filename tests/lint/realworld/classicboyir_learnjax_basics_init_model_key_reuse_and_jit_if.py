# source: https://github.com/classicboyir/learn-jax/blob/3fbb2906507dc800f34b08f6e4b117d98337e43a/basics.ipynb
# observed on jax 0.10.2 CPU: init_model draws the inputs and the targets of the batch from
#   the same key keys[0] (keys[1] is never used), so the targets are the first numbers of the
#   inputs (targets.ravel() == inputs.ravel()[:1280]) and the model is fitted to its own
#   input; b(2.3) raises TracerBoolConversionError at `if x > 0:` (the notebook shows this
#   error: "This breaks as the function depends on the value of the boolean operation").
#   Kept: code cells 3 and 15-45 as written, without the make_jaxpr, pmap and pjit cells
#   and the %timeit cells, except that of cell 27, which is a plain call of loss_jit;
#   cell 30's call b(2.3) is made in the __main__ block, where its error is caught and
#   its line checked; the rest of the __main__ block is added.
# gap: other
import jax.numpy as jnp
from jax import random
import jax

from jax import grad

def f(x, y):
    if x > 0:
        return 2 * x ** 3
    else:
        return 3 * x

2 * 3 * 2 ** 2

x = 2.0
y=2

print(grad(f)(x, y))
print(grad(f)(-x, y))

def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.maximum(outputs, 0)
    return outputs

def loss(params, batch):
    print("compiled")  # tolerate: JIT203
    inputs, targets = batch
    predictions = predict(params, inputs)
    return jnp.sum((predictions - targets) ** 2)

def init_layer(key, n_in, n_out):
    k1, k2 = random.split(key)
    W = random.normal(k1, (n_in, n_out)) / jnp.sqrt(n_in)
    b = random.normal(k2, (n_out, ))
    return W, b

def init_model(key, layer_sizes, batch_sizes):
    key, *keys = random.split(key, len(layer_sizes))
    params = list(map(init_layer, keys, layer_sizes[:-1], layer_sizes[1:]))

    key, *keys = random.split(key, 3)
    inputs = random.normal(keys[0], (batch_sizes, layer_sizes[0]))
    targets = random.normal(keys[0], (batch_sizes, layer_sizes[-1]))  # expect: JIT502

    return params, (inputs, targets)

layer_sizes = [768, 2048, 2048, 10]
batch_sizes = 128

params, batch = init_model(random.PRNGKey(0), layer_sizes, batch_sizes)

print(loss(params, batch))

step_size = 1e-5

for _ in range(30):
    grads = grad(loss)(params, batch)
    params = [[W - step_size * dW, b - step_size * db] for (W, b), (dW, db) in zip(params, grads)]

print(loss(params, batch))

from jax import jit

loss_jit = jit(loss)

loss_jit(params, batch).block_until_ready()

@jit
def b(x):
    if x > 0:  # expect: JIT101
        return 2 * x ** 3
    else:
        return 3 * x

@jit
def test_c(x):
    print('compilation!')  # tolerate: JIT203
    return x + 1

test_c(1)
test_c(1)
test_c(jnp.ones(2,))
test_c(jnp.ones(2,))

from jax import vmap

def l1_distance(x, y):
    assert x.ndim == y.ndim == 1
    return jnp.sum(jnp.abs(x - y))

xs = random.normal(random.PRNGKey(0), (20, 3))
ys = random.normal(random.PRNGKey(1), (20, 3))

dists = jnp.stack([l1_distance(x, y) for x, y in zip(xs, ys)])
print(dists)

dists_vmap = vmap(l1_distance)(xs, ys)
dists_vmap

if __name__ == "__main__":
    import traceback

    def failing_line(thunk):
        try:
            thunk()
        except jax.errors.TracerBoolConversionError as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return frames[-1].lineno
        raise AssertionError("no error")

    # observed: line 56 draws the targets from the key of the inputs
    inputs, targets = batch
    assert jnp.allclose(targets.ravel(), inputs.ravel()[:targets.size])
    # observed: line 83 raises TracerBoolConversionError for b(2.3)
    assert failing_line(lambda: b(2.3)) == 83
    assert jnp.allclose(dists, dists_vmap)
