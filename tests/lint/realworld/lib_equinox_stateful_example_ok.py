# source: https://github.com/patrick-kidger/equinox/blob/v0.13.8/docs/examples/stateful.ipynb
# observed on jax 0.10.2 CPU (equinox 0.13.8, optax 0.2.8): runs clean. BatchNorm and
#   SpectralNorm state is threaded through the eqx.filter_jit-ed make_step as an argument and
#   returned, never written to an outer object; the three keys come from one split. Added:
#   the last two cells moved into the __main__ block.
# gap: stale-state-attributes
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr
import optax  # https://github.com/deepmind/optax


# This model is just a weird mish-mash of stateful and non-stateful layers for
# demonstration purposes, it isn't doing any clever.
class Model(eqx.Module):
    norm1: eqx.nn.BatchNorm
    spectral_linear: eqx.nn.SpectralNorm[eqx.nn.Linear]
    norm2: eqx.nn.BatchNorm
    linear1: eqx.nn.Linear
    linear2: eqx.nn.Linear

    def __init__(self, key):
        key1, key2, key3, key4 = jr.split(key, 4)
        self.norm1 = eqx.nn.BatchNorm(input_size=3, axis_name="batch")
        self.spectral_linear = eqx.nn.SpectralNorm(
            layer=eqx.nn.Linear(in_features=3, out_features=32, key=key1),
            weight_name="weight",
            key=key2,
        )
        self.norm2 = eqx.nn.BatchNorm(input_size=32, axis_name="batch")
        self.linear1 = eqx.nn.Linear(in_features=32, out_features=32, key=key3)
        self.linear2 = eqx.nn.Linear(in_features=32, out_features=3, key=key4)

    def __call__(self, x, state):
        x, state = self.norm1(x, state)
        x, state = self.spectral_linear(x, state)
        x = jax.nn.relu(x)
        x, state = self.norm2(x, state)
        x = self.linear1(x)
        x = jax.nn.relu(x)
        x = self.linear2(x)
        return x, state


def compute_loss(model, state, xs, ys):
    batch_model = jax.vmap(
        model, axis_name="batch", in_axes=(0, None), out_axes=(0, None)
    )
    pred_ys, state = batch_model(xs, state)
    loss = jnp.mean((pred_ys - ys) ** 2)
    return loss, state


@eqx.filter_jit
def make_step(model, state, opt_state, xs, ys):
    grads, state = eqx.filter_grad(compute_loss, has_aux=True)(model, state, xs, ys)
    updates, opt_state = optim.update(grads, opt_state)
    model = eqx.apply_updates(model, updates)
    return model, state, opt_state


if __name__ == "__main__":
    dataset_size = 10
    learning_rate = 3e-4
    steps = 5
    seed = 5678

    key = jr.PRNGKey(seed)
    mkey, xkey, xkey2 = jr.split(key, 3)

    model, state = eqx.nn.make_with_state(Model)(mkey)

    xs = jr.normal(xkey, (dataset_size, 3))
    ys = jnp.sin(xs) + 1
    optim = optax.adam(learning_rate)
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))

    for _ in range(steps):
        # Full-batch gradient descent in this simple example.
        model, state, opt_state = make_step(model, state, opt_state, xs, ys)

    inference_model = eqx.nn.inference_mode(model)
    inference_model = eqx.Partial(inference_model, state=state)

    @eqx.filter_jit
    def evaluate(model, xs):
        # discard state
        out, _ = jax.vmap(model)(xs)
        return out

    test_dataset_size = 5
    test_xs = jr.normal(xkey2, (test_dataset_size, 3))
    pred_test_ys = evaluate(inference_model, test_xs)
