# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/docs/examples/latent_ode.ipynb
#   (the `Func` and `LatentODE` classes, `get_data`, and the `loss`/`make_step` closures of
#   `main`, lifted to module level with the `optim` they close over defined first, from
#   `main`'s default `lr`; the dataloader, plotting and the 250-step loop of `main` are
#   left out)
# observed on jax 0.10.2 CPU (diffrax 0.7.2, equinox 0.13.8): `loss` splits `key_i` into one
#   key per batch element, and `make_step` then splits the same consumed `key_i` again to
#   make the next step's key. With JAX's partitionable threefry (the default) the key it
#   returns equals `jr.split(key_i, batch_size)[0]`, the key the first batch element's
#   latent noise was drawn from, so each step's keys are split from a key the previous step
#   already used; with a typed key under jax.debug_key_reuse(True) the jitted call raises
#   KeyReuseError. Added: the imports of the first cell, and the __main__ block, which runs
#   one step at a small size.
# gap: other
import diffrax
import equinox as eqx
import jax
import jax.nn as jnn
import jax.numpy as jnp
import jax.random as jr
import optax


class Func(eqx.Module):
    scale: jnp.ndarray
    mlp: eqx.nn.MLP

    def __call__(self, t, y, args):
        return self.scale * self.mlp(y)


class LatentODE(eqx.Module):
    func: Func
    rnn_cell: eqx.nn.GRUCell

    hidden_to_latent: eqx.nn.Linear
    latent_to_hidden: eqx.nn.MLP
    hidden_to_data: eqx.nn.Linear

    hidden_size: int
    latent_size: int

    def __init__(
        self, *, data_size, hidden_size, latent_size, width_size, depth, key, **kwargs
    ):
        super().__init__(**kwargs)

        mkey, gkey, hlkey, lhkey, hdkey = jr.split(key, 5)

        scale = jnp.ones(())
        mlp = eqx.nn.MLP(
            in_size=hidden_size,
            out_size=hidden_size,
            width_size=width_size,
            depth=depth,
            activation=jnn.softplus,
            final_activation=jnn.tanh,
            key=mkey,
        )
        self.func = Func(scale, mlp)
        self.rnn_cell = eqx.nn.GRUCell(data_size + 1, hidden_size, key=gkey)

        self.hidden_to_latent = eqx.nn.Linear(hidden_size, 2 * latent_size, key=hlkey)
        self.latent_to_hidden = eqx.nn.MLP(
            latent_size, hidden_size, width_size=width_size, depth=depth, key=lhkey
        )
        self.hidden_to_data = eqx.nn.Linear(hidden_size, data_size, key=hdkey)

        self.hidden_size = hidden_size
        self.latent_size = latent_size

    # Encoder of the VAE
    def _latent(self, ts, ys, key):
        data = jnp.concatenate([ts[:, None], ys], axis=1)
        hidden = jnp.zeros((self.hidden_size,))
        for data_i in reversed(data):
            hidden = self.rnn_cell(data_i, hidden)
        context = self.hidden_to_latent(hidden)
        mean, logstd = context[: self.latent_size], context[self.latent_size :]
        std = jnp.exp(logstd)
        latent = mean + jr.normal(key, (self.latent_size,)) * std
        return latent, mean, std

    # Decoder of the VAE
    def _sample(self, ts, latent):
        dt0 = 0.4  # selected as a reasonable choice for this problem
        y0 = self.latent_to_hidden(latent)
        sol = diffrax.diffeqsolve(
            diffrax.ODETerm(self.func),
            diffrax.Tsit5(),
            ts[0],
            ts[-1],
            dt0,
            y0,
            saveat=diffrax.SaveAt(ts=ts),
        )
        return jax.vmap(self.hidden_to_data)(sol.ys)

    @staticmethod
    def _loss(ys, pred_ys, mean, std):
        # -log p_θ with Gaussian p_θ
        reconstruction_loss = 0.5 * jnp.sum((ys - pred_ys) ** 2)
        # KL(N(mean, std^2) || N(0, 1))
        variational_loss = 0.5 * jnp.sum(mean**2 + std**2 - 2 * jnp.log(std) - 1)
        return reconstruction_loss + variational_loss

    # Run both encoder and decoder during training.
    def train(self, ts, ys, *, key):
        latent, mean, std = self._latent(ts, ys, key)
        pred_ys = self._sample(ts, latent)
        return self._loss(ys, pred_ys, mean, std)

    # Run just the decoder during inference.
    def sample(self, ts, *, key):
        latent = jr.normal(key, (self.latent_size,))
        return self._sample(ts, latent)


def get_data(dataset_size, *, key):
    ykey, tkey1, tkey2 = jr.split(key, 3)

    y0 = jr.normal(ykey, (dataset_size, 2))

    t0 = 0
    t1 = 2 + jr.uniform(tkey1, (dataset_size,))
    ts = jr.uniform(tkey2, (dataset_size, 20)) * (t1[:, None] - t0) + t0
    ts = jnp.sort(ts)
    dt0 = 0.1

    def func(t, y, args):
        return jnp.array([[-0.1, 1.3], [-1, -0.1]]) @ y

    def solve(ts, y0):
        sol = diffrax.diffeqsolve(
            diffrax.ODETerm(func),
            diffrax.Tsit5(),
            ts[0],
            ts[-1],
            dt0,
            y0,
            saveat=diffrax.SaveAt(ts=ts),
        )
        return sol.ys

    ys = jax.vmap(solve)(ts, y0)

    return ts, ys


lr = 1e-2
optim = optax.adam(lr)


@eqx.filter_value_and_grad
def loss(model, ts_i, ys_i, key_i):
    batch_size, _ = ts_i.shape
    key_i = jr.split(key_i, batch_size)
    loss = jax.vmap(model.train)(ts_i, ys_i, key=key_i)
    return jnp.mean(loss)

@eqx.filter_jit
def make_step(model, opt_state, ts_i, ys_i, key_i):
    value, grads = loss(model, ts_i, ys_i, key_i)
    key_i = jr.split(key_i, 1)[0]  # expect: JIT502
    updates, opt_state = optim.update(grads, opt_state)
    model = eqx.apply_updates(model, updates)
    return value, model, opt_state, key_i


if __name__ == "__main__":
    key = jr.PRNGKey(5678)
    data_key, model_key, loader_key, train_key, sample_key = jr.split(key, 5)
    batch_size = 4
    ts, ys = get_data(batch_size, key=data_key)
    model = LatentODE(
        data_size=ys.shape[-1],
        hidden_size=8,
        latent_size=8,
        width_size=8,
        depth=2,
        key=model_key,
    )
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))
    value, model, opt_state, next_key = make_step(model, opt_state, ts, ys, train_key)
    batch_keys = jr.split(train_key, batch_size)  # tolerate: JIT502
    # observed: line 164 returns, as the next step's key, the key this step drew the first
    #   batch element's latent noise from
    assert (next_key == batch_keys[0]).all()
    message = None
    with jax.debug_key_reuse(True):
        try:
            make_step(model, opt_state, ts, ys, jr.key(0))
        except jax.errors.KeyReuseError as e:
            message = str(e)
    assert message is not None and "already consumed" in message, message
