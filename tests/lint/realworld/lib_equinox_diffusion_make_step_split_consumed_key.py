# source: https://github.com/patrick-kidger/equinox/blob/9336d820b2ef66b360fc6cb3611b3da5cefbb14d/docs/examples/score_based_diffusion.ipynb
#   (`single_loss_fn`, `batch_loss_fn` and `make_step` of the score-based diffusion example;
#   commit e906718 fixed the key re-use of its dataloader but left this one)
# observed on jax 0.10.2 CPU with equinox 0.13.8: `batch_loss_fn` splits `key` into `tkey`
#   and `losskey`, and `make_step` then splits the same consumed `key` again to make the
#   next step's key: the key it returns equals `jr.split(key)[0]`, the `tkey` this step
#   already drew its `t` from, so every step's times are drawn from a key that the next step
#   splits again. With a typed key under `jax.debug_key_reuse(True)` the jitted call raises
#   KeyReuseError ("In random_split, argument 0 is already consumed"). `Mixer2d` needs
#   einops, which is not installed: a one-parameter module with the same `__call__(t, y)`
#   stands in for it; the data, optimizer setup and `__main__` block follow `main()` at a
#   small size.
# gap: other
import functools as ft

import jax
import jax.numpy as jnp
import jax.random as jr
import optax

import equinox as eqx


def single_loss_fn(model, weight, int_beta, data, t, key):
    mean = data * jnp.exp(-0.5 * int_beta(t))
    var = jnp.maximum(1 - jnp.exp(-int_beta(t)), 1e-5)
    std = jnp.sqrt(var)
    noise = jr.normal(key, data.shape)
    y = mean + std * noise
    pred = model(t, y)
    return weight(t) * jnp.mean((pred + noise / std) ** 2)


def batch_loss_fn(model, weight, int_beta, data, t1, key):
    batch_size = data.shape[0]
    tkey, losskey = jr.split(key)
    losskey = jr.split(losskey, batch_size)
    # Low-discrepancy sampling over t to reduce variance
    t = jr.uniform(tkey, (batch_size,), minval=0, maxval=t1 / batch_size)
    t = t + (t1 / batch_size) * jnp.arange(batch_size)
    loss_fn = ft.partial(single_loss_fn, model, weight, int_beta)
    loss_fn = jax.vmap(loss_fn)
    return jnp.mean(loss_fn(data, t, losskey))


@eqx.filter_jit
def make_step(model, weight, int_beta, data, t1, key, opt_state, opt_update):
    loss_fn = eqx.filter_value_and_grad(batch_loss_fn)
    loss, grads = loss_fn(model, weight, int_beta, data, t1, key)
    updates, opt_state = opt_update(grads, opt_state)
    model = eqx.apply_updates(model, updates)
    key = jr.split(key, 1)[0]  # expect: JIT502
    return loss, model, key, opt_state


class Mixer2d(eqx.Module):  # stand-in for the example's Mixer2d (needs einops)
    scale: jax.Array

    def __call__(self, t, y):
        return self.scale * y * t


if __name__ == "__main__":
    model = Mixer2d(jnp.ones(()))
    int_beta = lambda t: t  # Try experimenting with other options here!
    weight = lambda t: 1 - jnp.exp(
        -int_beta(t)
    )  # Just chosen to upweight the region near t=0.
    opt = optax.adabelief(3e-4)
    opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    data = jr.normal(jr.PRNGKey(1), (8, 1, 4, 4))
    train_key = jr.PRNGKey(5678)
    value, model, next_key, opt_state = make_step(
        model, weight, int_beta, data, 10.0, train_key, opt_state, opt.update
    )
    tkey, _ = jr.split(train_key)  # tolerate: JIT502
    # observed: line 52 returns, as the next step's key, the `tkey` this step drew `t` from
    assert (next_key == tkey).all()
    message = None
    with jax.debug_key_reuse(True):
        try:
            make_step(model, weight, int_beta, data, 10.0, jr.key(5678), opt_state,
                      opt.update)
        except jax.errors.KeyReuseError as e:
            message = str(e)
    assert message is not None and "random_split" in message, message
