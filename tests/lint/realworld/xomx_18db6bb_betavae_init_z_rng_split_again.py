# source: https://github.com/perrin-isir/xomx/blob/18db6bb345005a31c484f5b1f057e313d2ced15b/xomx/embeddings/BetaVAE.py
#   (xomx, a lab's toolkit for single-cell and bulk transcriptomics: a beta-VAE embedding of an
#   AnnData expression matrix, flax + optax)
# observed on jax 0.10.2 CPU: init_state splits self.rng, gives the split's second key to init as
#   the params key and its first, now self.rng, to __call__ as z_rng, where
#   reparameterize draws random.normal(self.rng, ...); fit_transform then splits that same self.rng
#   for the first training key. Under JAX's partitionable threefry the bits a key draws at index j
#   are the xor of the two words of its j-th split key, so the eps bits of the init pass fix the
#   first training keys. JAX's key-reuse checker raises at fit_transform's split.
# gap: other
# Kept: BetaVAE.py as written. Added: _to_dense copied from xomx/tools/utils.py (same commit) in
#   place of its import; a stand-in for scikit-learn's check_random_state (not installed); a
#   stand-in AnnData (X, n_vars, n_obs, uns) with random counts; the __main__ block.
import numpy as np


def check_random_state(seed):  # stand-in for sklearn.utils.random.check_random_state
    if seed is None:
        return np.random.mtrand._rand
    if isinstance(seed, (int, np.integer)):
        return np.random.RandomState(seed)
    return seed
import jax
import jax.numpy as jnp
from jax import random
from functools import partial
from flax import linen as nn
from flax.training import train_state
import optax
from typing import Sequence, Tuple
from scipy.sparse import issparse


def _to_dense(x):  # xomx/tools/utils.py, same commit
    if issparse(x):
        return x.todense()
    else:
        return x


class Encoder(nn.Module):
    hidden_dims: Sequence[int]
    latent_dim: int

    @nn.compact
    def __call__(
        self,
        x: jnp.ndarray,
    ) -> Tuple[jnp.ndarray]:
        x = nn.Dense(features=self.hidden_dims[0])(x)
        x = nn.gelu(x)
        x = nn.Dense(features=self.hidden_dims[1])(x)
        x = nn.gelu(x)
        mu = nn.Dense(features=self.latent_dim)(x)
        log_var = nn.Dense(features=self.latent_dim)(x)
        return mu, log_var


class Decoder(nn.Module):
    hidden_dims: Sequence[int]
    output_dim: int

    @nn.compact
    def __call__(
        self,
        z: jnp.ndarray,
    ) -> jnp.ndarray:
        z = nn.Dense(features=self.hidden_dims[0])(z)
        z = nn.gelu(z)
        z = nn.Dense(features=self.hidden_dims[1])(z)
        z = nn.gelu(z)
        x = nn.Dense(features=self.output_dim)(z)
        return x


class VAE(nn.Module):
    latents: int = 20
    output_dim: int = 100
    hidden_dims: tuple = (100, 100)

    def setup(self):
        hidden_dims_encoder = list(self.hidden_dims)
        hidden_dims_decoder = list(self.hidden_dims)
        self.encoder = Encoder(hidden_dims_encoder, self.latents, name="encoder")
        self.decoder = Decoder(hidden_dims_decoder, self.output_dim, name="decoder")

    def __call__(self, x, z_rng):
        mean, log_var = self.encoder(x)
        z = reparameterize(z_rng, mean, log_var)
        recon_x = self.decoder(z)
        return recon_x, mean, log_var

    def encode(self, params, x):
        mean, log_var = self.bind({"params": params}).encoder(x)
        return mean

    def generate(self, params, z):
        return nn.sigmoid(self.bind({"params": params}).decoder(z))


def reparameterize(rngen, mean, logvar):
    std = jnp.exp(0.5 * logvar)
    eps = random.normal(rngen, logvar.shape)
    return mean + eps * std


@jax.vmap
def kl_divergence(mean, logvar):
    return -0.5 * jnp.sum(1 + logvar - jnp.square(mean) - jnp.exp(logvar))


@jax.vmap
def binary_cross_entropy_with_logits(logits, labels):
    logits = nn.log_sigmoid(logits)
    return -jnp.sum(labels * logits + (1.0 - labels) * jnp.log(-jnp.expm1(logits)))


@partial(jax.jit, static_argnames=["latents", "output_dim", "hidden_dims", "beta"])
def train_step(latents, output_dim, hidden_dims, beta, state, batch, z_rng):
    def loss_fn(params):
        recon_x, mean, logvar = VAE(
            latents=latents, output_dim=output_dim, hidden_dims=hidden_dims
        ).apply({"params": params}, batch, z_rng)
        bce_loss = binary_cross_entropy_with_logits(recon_x, batch).mean()
        kld_loss = kl_divergence(mean, logvar).mean()
        loss = bce_loss + beta * kld_loss
        return loss, {"loss": loss}

    grads, aux = jax.grad(loss_fn, has_aux=True)(state.params)
    return state.apply_gradients(grads=grads), aux


class BetaVAE:
    def __init__(
        self,
        adata,
        n_components=2,
        beta=1.0,
        hidden_dims=(100, 100),
        learning_rate=1e-3,
        batch_size=80,
        epsilon=1e-9,
        random_state=None,
    ):
        self.adata = adata
        self.random_state = random_state
        self.n_components = n_components
        self.beta = beta
        self.hidden_dims = hidden_dims
        self.epsilon = epsilon
        self.batch_size = batch_size
        self.output_dim = adata.n_vars
        self.learning_rate = learning_rate
        max_val = adata.X.max()
        min_val = adata.X.min()
        self.data = np.asarray(
            (_to_dense(adata.X) - min_val + self.epsilon)
            / (max_val - min_val + self.epsilon)
        ).copy()
        self.vae = VAE(
            latents=self.n_components,
            output_dim=self.output_dim,
            hidden_dims=self.hidden_dims,
        )
        self.np_random_state = check_random_state(random_state)
        self.rng = random.PRNGKey(self.np_random_state.randint(1_000_000))
        self.state = self.init_state()

    def init_state(self):
        self.rng, key = random.split(self.rng)
        return train_state.TrainState.create(
            apply_fn=self.vae.apply,
            params=self.vae.init(
                key, jnp.ones((self.batch_size, self.output_dim)), self.rng
            )["params"],
            tx=optax.adam(learning_rate=self.learning_rate),
        )

    def fit_transform(self, iterations=10_000):
        print_iter = max(int(iterations / 40.0), 1)
        for i in range(iterations):
            batch_idxs = self.np_random_state.choice(
                self.adata.uns["train_indices"]
                if "train_indices" in self.adata.uns
                else np.arange(self.adata.n_obs),
                size=self.batch_size,
                replace=True,
            )
            batch = self.data[batch_idxs]
            self.rng, key = random.split(self.rng)  # expect: JIT502
            self.state, info = train_step(
                self.n_components,
                self.output_dim,
                self.hidden_dims,
                self.beta,
                self.state,
                batch,
                key,
            )
            if not i % print_iter:
                print(f"iteration {i}/{iterations}, loss: {info['loss']}")
        return np.array(
            self.vae.encode(self.state.params, self.data)[:, 0 : self.n_components]
        )


class AnnData:  # stand-in for anndata.AnnData
    def __init__(self, X):
        self.X = X
        self.n_obs, self.n_vars = X.shape
        self.uns = {}


# observed: line 190 the fit's first split is of the key the init pass drew its eps from: the uniform bits random.normal(self.rng) used at index 0 and 1 are the xor of the words of the two keys this split returns; JAX's key-reuse checker raises here
if __name__ == "__main__":
    rs = np.random.RandomState(0)
    adata = AnnData(rs.poisson(2.0, size=(200, 30)).astype(np.float32))
    vae = BetaVAE(adata, n_components=2, hidden_dims=(16, 16), batch_size=20, random_state=0)
    # the key init_state handed to __call__ as z_rng, made again from its data
    z_rng_again = random.wrap_key_data(random.key_data(vae.rng))
    emb = vae.fit_transform(iterations=40)
    print("embedding", emb.shape)
    # reparameterize drew random.normal(z_rng, (batch_size, latents)) from these bits
    bits = np.asarray(random.bits(z_rng_again, (vae.batch_size, vae.n_components), jnp.uint32)).ravel()[:2]
    z_rng_again = random.wrap_key_data(random.key_data(z_rng_again))
    words = np.asarray(random.key_data(random.split(z_rng_again)))
    xors = words[:, 0] ^ words[:, 1]
    print("eps bits of the init pass:", bits, " xor of the words of fit_transform's first split:", xors)
    assert (bits == xors).all()
    assert emb.shape == (200, 2)
