# source: https://github.com/gpjt/jax-play/blob/4bf761258f67f1d29d5c3497060885151bdb05ca/pure_jax_xor_optimized.py
#   (a learner's JAX play repository: an XOR network in plain JAX, the commit "Optimised
#   version -- now faster than PyTorch", which moves the value_and_grad and the update
#   into one jitted train_step)
# observed on jax 0.10.2 CPU: runs clean and learns XOR. train_step is traced once: the
#   layers are a list of dicts (a pytree of arrays), forward's `for layer in layers` loops
#   over that Python list at trace time, the jitted forward and calculate_loss are inlined
#   into it, learning_rate is a Python float traced as a weak-typed scalar, and
#   `loss.item()` runs on the returned array outside jit. The two layers' keys come from one
#   split of the typed key, each split again into weight and bias keys. The check after
#   main() in the __main__ block is added.
# gap: other
import math

import jax
import jax.numpy as jnp

jax.config.update("jax_platform_name", "cpu")


data = [
    ([0., 0.], [0]),
    ([0., 1.], [1]),
    ([1., 0.], [1]),
    ([1., 1.], [0]),
]


def generate_layer_parameters(key, d_in, d_out):
    weight_key, bias_key = jax.random.split(key)
    root_k = math.sqrt(1. / d_in)
    weights = (jax.random.uniform(weight_key, shape=(d_out, d_in)) * 2 * root_k) - root_k
    biases = (jax.random.uniform(bias_key, shape=(d_out,)) * 2 * root_k) - root_k
    return {
        "weights": weights,
        "biases": biases,
    }


@jax.jit
def forward(layers, inputs):
    x = inputs
    for layer in layers:
        x = jax.nn.sigmoid(
            x @ layer["weights"].T + layer["biases"]
        )
    return x


def step(layers, grads, learning_rate):
    layers = jax.tree.map(
        lambda p, g: p - g * learning_rate,
        layers,
        grads,
    )
    return layers


@jax.jit
def calculate_loss(layers, inputs, target):
    result = forward(layers, inputs)
    return ((result - target) ** 2).mean()


@jax.jit
def train_step(layers, x, y, learning_rate):
    loss, grads = jax.value_and_grad(calculate_loss)(layers, x, y)

    layers = step(layers, grads, learning_rate)

    return layers, loss


def main():
    key = jax.random.key(42)

    layer_1_key, layer_2_key = jax.random.split(key)
    layers = [
        generate_layer_parameters(layer_1_key, 2, 2),
        generate_layer_parameters(layer_2_key, 2, 1),
    ]

    learning_rate = 0.1

    for epoch in range(10000):
        losses = []

        for x, y in data:
            layers, loss = train_step(
                layers,
                jnp.array(x),
                jnp.array(y),
                learning_rate
            )
            losses.append(loss.item())

        if epoch % 100 == 0:
            avg_loss = sum(losses) / len(losses)
            print(f"Loss at epoch {epoch}: {avg_loss:.6f}")

    for x, y in data:
        result = forward(layers, jnp.array(x))
        print(f"{x=}: {result=}, {y=}")


if __name__ == "__main__":
    main()
    assert train_step._cache_size() == 1, train_step._cache_size()
