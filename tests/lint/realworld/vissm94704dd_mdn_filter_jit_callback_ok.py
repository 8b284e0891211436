# source: https://github.com/chnyutao/vissm/blob/94704dd91e030e584f4272dac0a01acc6b3a5076/utils.py (train_step; with run.py, models/models.py, models/utils.py, models/distributions.py and dataset/canonical.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; train_step is compiled once for the whole loop (the partial(train_step, callback=..., opt=opt) is built once before the loop, the model's `loss` branches are static fields), jax.debug.callback reports the metrics on every step, and a fresh key is split off per step
# gap: exemption-vs-JAX
# stand-ins: distrax is not installed, so the three distrax classes the model uses (MultivariateNormalDiag, OneHotCategorical, MixtureSameFamily) are small jax.numpy classes with the log_prob/entropy they need; jax_dataloader's DataLoader is a list of batches; wandb.log is a list-appending logger
# removed: eval_step/save_model (plots and wandb uploads), the bimodal GaussianMixtureModel and the rmse helper; config: the repo's 'canonical' config with smaller sizes (n=128, hidden (16, 16), 3 epochs)
from collections.abc import Callable, Sequence
from functools import partial
from itertools import pairwise
from typing import Literal

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr
import optax
from equinox import nn
from jax.lax import stop_gradient as sg
from jaxtyping import Array, PRNGKeyArray, PyTree


# --- stand-ins for the distrax distributions used below
class _MultivariateNormalDiag:
    def __init__(self, loc, scale_diag):
        self.loc, self.scale_diag = loc, scale_diag

    def log_prob(self, x):
        z = (x - self.loc) / self.scale_diag
        return jnp.sum(-0.5 * z**2 - jnp.log(self.scale_diag) - 0.5 * jnp.log(2 * jnp.pi), axis=-1)


class _OneHotCategorical:
    def __init__(self, logits):
        self.logits = logits

    def entropy(self):
        logp = jax.nn.log_softmax(self.logits)
        return -jnp.sum(jnp.exp(logp) * logp, axis=-1)


class _MixtureSameFamily:
    def __init__(self, mixture_distribution, components_distribution):
        self.mixture_distribution = mixture_distribution
        self.components_distribution = components_distribution

    def log_prob(self, x):
        logw = jax.nn.log_softmax(self.mixture_distribution.logits)
        return jax.nn.logsumexp(logw + self.components_distribution.log_prob(x[..., None, :]), axis=-1)


class distrax:
    MultivariateNormalDiag = _MultivariateNormalDiag
    OneHotCategorical = _OneHotCategorical
    MixtureSameFamily = _MixtureSameFamily


# --- models/distributions.py
class Categorical(eqx.Module):
    """Categorical Distribution."""

    logits: Array

    def sample(self, tau: float = 1e-5, *, key: PRNGKeyArray) -> Array:
        gumbel = jr.gumbel(key, self.logits.shape)
        log_p = jax.nn.log_softmax(self.logits)
        return jnp.exp(jax.nn.log_softmax((log_p + gumbel) / tau))

    def to(self) -> distrax.OneHotCategorical:
        return distrax.OneHotCategorical(self.logits)


class Gaussian(eqx.Module):
    """Gaussian Distribution (Diagonal)."""

    mean: Array
    std: Array

    def sample(self, *, key: PRNGKeyArray) -> Array:
        return self.mean + self.std * jr.normal(key, self.std.shape)

    def to(self) -> distrax.MultivariateNormalDiag:
        return distrax.MultivariateNormalDiag(self.mean, self.std)


class GaussianMixture(eqx.Module):
    """Gaussian Mixture Distribution."""

    weight: Categorical
    components: Gaussian  # batched

    def sample(self, tau: float = 1e-5, *, key: PRNGKeyArray) -> Array:
        key1, key2 = jr.split(key)
        y = self.weight.sample(tau=tau, key=key1)
        component = Gaussian(
            mean=jnp.einsum('k,kn->n', y, self.components.mean),
            std=jnp.einsum('k,kn->n', y, self.components.std),
        )
        return component.sample(key=key2)

    def to(self) -> distrax.MixtureSameFamily:
        return distrax.MixtureSameFamily(
            mixture_distribution=self.weight.to(),
            components_distribution=self.components.to(),
        )


# --- models/utils.py
class MLP(nn.Sequential):
    """Multi-layer Perceptron."""

    def __init__(
        self,
        in_size: int,
        out_size: int,
        hidden_sizes: Sequence[int] = (),
        *,
        act: Callable[[Array], Array] = jax.nn.relu,
        key: PRNGKeyArray,
    ) -> None:
        layer_sizes = [in_size, *hidden_sizes, out_size]
        layers = []
        keys = iter(jr.split(key, len(layer_sizes) - 1))
        for in_size, out_size in pairwise(layer_sizes):
            layers.append(nn.Linear(in_size, out_size, key=next(keys)))
            layers.append(nn.LayerNorm(out_size, use_weight=False, use_bias=False))
            layers.append(nn.Lambda(act))
        super().__init__(layers[:-2])  # drop last layer norm & act

    def __call__(self, x: Array) -> Array:
        return super().__call__(x.ravel())


@jax.custom_jvp
def ngd(dist: Gaussian) -> Gaussian:
    return dist


@ngd.defjvp
def _(primals: tuple[Gaussian], tangents: tuple[Gaussian]) -> tuple[Gaussian, Gaussian]:
    dist, grads = *primals, *tangents
    return dist, Gaussian(
        mean=grads.mean * (dist.std**2),
        std=grads.std / 2.0 * (dist.std**2),
    )


# --- models/models.py
Loss = Literal['nll', 'ngem', 'sgem']


class MixtureDensityNetwork(eqx.Module):
    """Mixture Density Network (MDN)."""

    cat: Callable[[Array], Array]
    gauss: Callable[[Array], Array]
    loss: Loss = eqx.field(static=True)

    def __init__(
        self,
        cat: Callable[[Array], Array],
        gauss: Callable[[Array], Array],
        loss: Loss,
    ) -> None:
        self.cat = cat
        self.gauss = gauss
        self.loss = loss

    def __call__(self, x: Array) -> GaussianMixture:
        weight = Categorical(self.cat(x))
        k = weight.logits.shape[-1]
        means, log_stds = jnp.split(self.gauss(x), 2)
        components = Gaussian(means.reshape(k, -1), jnp.exp(log_stds).reshape(k, -1))
        if self.loss == 'ngem':
            components = ngd(components)
        return GaussianMixture(weight, components)

    @eqx.filter_value_and_grad(has_aux=True)
    def loss_fn(self, x: Array, y: Array) -> tuple[Array, dict[str, Array]]:
        dists = jax.vmap(self)(x)
        match self.loss:
            case 'nll':
                loss = -dists.to().log_prob(y).mean()
            case _:
                # e-step: responsibilities
                log_weights = jax.nn.log_softmax(dists.weight.logits)
                log_components = dists.components.to().log_prob(y[:, jnp.newaxis])
                rho = sg(jax.nn.softmax(log_weights + log_components, axis=-1))
                # m-step: gradient descent
                loss = -(rho * (log_weights + log_components)).sum(axis=-1).mean()
        # return
        entropy = dists.weight.to().entropy().mean()
        y_hat = dists.components.mean.squeeze()
        rmse = jnp.sqrt(((y - y_hat) ** 2).min(axis=-1).mean())
        return loss, {'train/loss': loss, 'train/entropy': entropy, 'train/rmse': rmse}


# --- dataset/canonical.py (the DataLoader replaced by a list of batches)
def make_canonical(n: int, *, key: PRNGKeyArray, batch_size: int = 32, shuffle: bool = True):
    key1, key2 = jr.split(key)
    # generate data
    y = jr.uniform(key1, (n, 1))
    x = y + 0.3 * jnp.sin(2 * jnp.pi * y)
    x = x + jr.uniform(key2, x.shape, minval=-0.1, maxval=0.1)
    # return
    return [(x[i:i + batch_size], y[i:i + batch_size]) for i in range(0, n, batch_size)]


# --- utils.py
def make_opt(
    config,
    model: PyTree,
) -> tuple[optax.GradientTransformation, optax.OptState]:
    match config['opt']:
        case 'adam':
            opt = optax.adam(config['lr'])
        case 'rmsprop':
            opt = optax.rmsprop(config['lr'])
        case 'sgd':
            opt = optax.sgd(config['lr'])
    opt_state = opt.init(eqx.filter(model, eqx.is_array))
    return opt, opt_state


@eqx.filter_jit
def train_step(
    model: PyTree,
    batch: tuple[Array, ...],
    opt_state: optax.OptState,
    *,
    callback: Callable[..., None] = lambda _: None,
    key: PRNGKeyArray,
    opt: optax.GradientTransformation,
):
    """Perform a single jitted training step."""
    (_, metrics), grads = model.loss_fn(*batch)
    updates, opt_state = opt.update(
        updates=grads,
        state=opt_state,
        params=eqx.filter(model, eqx.is_array),
    )
    jax.debug.callback(callback, metrics)
    return eqx.apply_updates(model, updates), opt_state


if __name__ == "__main__":
    from tqdm.auto import tqdm

    logged = []
    log = logged.append  # stand-in for wandb.log

    config = {'seed': 42, 'n': 128, 'batch_size': 32, 'epochs': 3, 'k': 3, 'hidden_sizes': (16, 16),
              'act': 'gelu', 'loss': 'ngem', 'opt': 'sgd', 'lr': 1e-4}

    # run.py
    key = jr.key(config['seed'])
    key, key1, key2 = jr.split(key, 3)
    train_set = make_canonical(config['n'], key=key1, batch_size=config['batch_size'])

    # utils.make_model, 'canonical' / 'mixture'
    key, subkey = jr.split(key)
    act = getattr(jax.nn, config['act'])
    key1, key2 = jr.split(subkey)
    model = MixtureDensityNetwork(
        cat=MLP(1, config['k'], config['hidden_sizes'], key=key1, act=act),
        gauss=MLP(1, config['k'] * 1 * 2, config['hidden_sizes'], key=key2, act=act),
        loss=config['loss'],
    )
    opt, opt_state = make_opt(config, model)

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(event)
        if event == '/jax/core/compile/backend_compile_duration' else None)

    # main loop
    train_step = partial(train_step, callback=log, opt=opt)
    n_steps = 0
    for epoch in tqdm(range(config['epochs'])):
        for batch in train_set:
            key, subkey = jr.split(key)
            model, opt_state = train_step(model, batch, opt_state, key=subkey)
            n_steps += 1
            if n_steps == 1:
                jax.effects_barrier()
                first_compiles = len(compiles)
    jax.effects_barrier()

    assert len(logged) == n_steps, (len(logged), n_steps)
    assert len(compiles) == first_compiles, (len(compiles), first_compiles)
    assert all(jnp.isfinite(m['train/loss']) for m in logged)
    print("OK:", n_steps, "steps,", len(logged), "callbacks, no recompiles after step 1;",
          "last loss", float(logged[-1]['train/loss']))
