# source: https://github.com/elizavetasemenova/PriorCVAE_JAX/blob/6b00f344da600ba06d9e02c585138a93680ee5c3/priorCVAE/models/cvae.py
#   (PriorVAE: a VAE trained on Gaussian-process draws; priorCVAE/models/cvae.py and
#   losses.py, and the training cells of "Main PriorVAE.ipynb", at the parent of commit
#   4a254dd "add prng key parameter to model")
# observed on jax 0.10.2 CPU: VAE.__call__ builds `jax.random.PRNGKey(0)` itself (its comment
#   says "TO DO : CHANGE TO RANDOM KEY"), so the reparameterisation draws the same eps in
#   every forward pass: every call of the jitted train_step and eval decodes the same
#   latent noise; two jitted forward passes with the same params give an identical y_hat
#   (which is not the decoding of the mean).
# gap: other
# added: the notebook's data (Dataset_GP1d and torch DataLoaders) is a stand-in list of
#   (x, y, ls) batches of normal draws; num_samples is 500 and num_epochs 2 (10000 and 200
#   in the notebook), and the notebook's plotting, MCMC and version-print cells are left
#   out; the __main__ block.
# Flax VAE example: https://github.com/google/flax/blob/main/examples/vae/train.py

# import libraries
import jax
from jax import random
import jax.numpy as jnp
from flax import linen as nn

# define arhitecture

class Encoder(nn.Module):
    hidden_dim: int
    latent_dim:  int

    @nn.compact
    def __call__(self, y):
        y = nn.Dense(self.hidden_dim, name="enc_hidden")(y)
        y = nn.leaky_relu(y)
        z_mu = nn.Dense(self.latent_dim, name="z_mu")(y)
        z_logvar = nn.Dense(self.latent_dim, name="z_logvar")(y)
        return z_mu, z_logvar
    

class Decoder(nn.Module):
    hidden_dim: int
    out_dim: int

    @nn.compact
    def __call__(self, z):
        z = nn.Dense(self.hidden_dim, name="dec_hidden")(z)
        z = nn.leaky_relu(z)
        z = nn.Dense(self.out_dim, name="dec_out")(z)
        return z
    
class VAE(nn.Module):
    hidden_dim: int
    latent_dim: int
    out_dim: int
    conditional: bool

    def setup(self):
        self.encoder = Encoder(hidden_dim = self.hidden_dim, latent_dim = self.latent_dim)
        self.decoder = Decoder(hidden_dim = self.hidden_dim, out_dim    = self.out_dim)

    @nn.compact
    def __call__(self, y, c=None):

        def reparameterize(rng, mean, logvar):
            std = jnp.exp(0.5 * logvar)
            eps = random.normal(rng, logvar.shape)
            return mean + eps * std
        
        z_mu, z_logvar = self.encoder(y)
        #rng_key = self.make_rng("train_latent_dist")
        rng_key = jax.random.PRNGKey(0)        # TO DO : CHANGE TO RANDOM KEY - key = self.make_rng('stats')  # expect: JIT502
        z = reparameterize(rng_key, z_mu, z_logvar)
        y_hat = self.decoder(z)

        return y_hat, z_mu, z_logvar
    
    def generate(self, z):
        return self.decoder(z)


# priorCVAE/models/losses.py
import optax

@jax.jit
def kl_divergence(mean, logvar):
  """ sum or mean? """
  return -0.5 * jnp.sum(1 + logvar - jnp.square(mean) - jnp.exp(logvar))

@jax.jit
def rcl(y, reconstructed_y, vae_var=1):
    """ sum or mean? """
    return jnp.sum(optax.l2_loss(reconstructed_y, y) / vae_var) 


# Main PriorVAE.ipynb
import time
import numpy as np
from flax.training import train_state  # Useful dataclass to keep train state

args = {"seed": 0,
        
        # data
        "num_samples": 500,
        
        # architecture
        "conditional": False,   # CVAE if True, VAE otherwise
        "input_dim" : 50,
        "hidden_dim": 40,
        "latent_dim": 30,
        
        # VAE training    
        "batch_size": 100,
        "num_epochs": 2,
        "vae_var": 1, 
       }


def _gp_batches(seed):  # stand-in for Dataset_GP1d + create_data_loaders (torch)
    rs = np.random.RandomState(seed)
    x = np.tile(np.linspace(0, 1, args["input_dim"]), (args["batch_size"], 1))
    return [(x, rs.normal(size=(args["batch_size"], args["input_dim"])).astype(np.float32),
             rs.uniform(0.01, 1.0, size=args["batch_size"]))
            for _ in range(args["num_samples"] // args["batch_size"])]


train_loader = _gp_batches(42)
val_loader = _gp_batches(43)
test_loader = _gp_batches(44)
val_loader_iter   = iter(val_loader)

out_dim     = args["input_dim"]
hidden_dim  = args["hidden_dim"]
latent_dim  = args["latent_dim"]
conditional = args["conditional"]
batch_size  = args["batch_size"]
num_samples = args["num_samples"]
num_epochs  = args["num_epochs"]
vae_var     = args["vae_var"]

@jax.jit
def train_step(state, batch):
    def loss_fn(params):
        _, y, _ = batch 
        y_hat, z_mu, z_sd = model.apply({'params': params}, y) 
        rcl_loss = rcl(y_hat, y, vae_var).mean()
        kld_loss = kl_divergence(z_mu, z_sd).mean()
        loss = rcl_loss + kld_loss
        return loss
    
    grads = jax.grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads), loss_fn(state.params)

@jax.jit
def eval(state, batch):
    def loss_fn(params):
        _, y, _ = batch 
        y_hat, z_mu, z_sd = model.apply({'params': params}, y) 
        rcl_loss = rcl(y_hat, y, vae_var).mean()
        kld_loss = kl_divergence(z_mu, z_sd).mean()
        loss = rcl_loss + kld_loss
        return loss
    
    return loss_fn(state.params)

# define model
model = VAE(hidden_dim, latent_dim, out_dim, conditional)

# initialise parameters
key = jax.random.PRNGKey(0) 
batch_init = next(val_loader_iter) # batch[0] - x, batch[1] - y, batch[2] - c
_, y, _ = batch_init
params = model.init(key, y)['params']

# optimizer
optimizer = optax.adam(learning_rate=0.001)

# store training state
state = train_state.TrainState.create(apply_fn=model, params=params, tx=optimizer)

_loss_train = []
_loss_test = []

t_start = time.time()

for epoch in range(num_epochs):
    # Training phase
    for _, batch_train in enumerate(train_loader):
        state, loss_train = train_step(state, batch_train)
        _loss_train.append(loss_train)

    # Test phase
    for _, batch_test in enumerate(test_loader):
        loss_test = eval(state, batch_test)
        _loss_test.append(loss_test)

    if epoch % 10 == 0:   
        print(f'[{epoch + 1:5d}] training loss: {loss_train:.3f}, test loss: {loss_test:.3f}')

t_elapsed = time.time() - t_start

print(f'Training of {num_epochs} epochs took {round(t_elapsed)} seconds')

assert len(_loss_train) == num_epochs * num_samples // batch_size


if __name__ == "__main__":
    forward = jax.jit(lambda p, y: model.apply({'params': p}, y))
    y_hat_1, mu_1, logvar_1 = forward(state.params, y)
    y_hat_2, mu_2, logvar_2 = forward(state.params, y)
    # observed: line 69 builds the same key in every pass: two forward passes of the VAE
    #   decode the same latent sample, y_hat is identical, and so is the noise drawn in
    #   every training step
    assert bool(jnp.all(y_hat_1 == y_hat_2))
    decoded_mean = model.apply({'params': state.params}, mu_1, method=VAE.generate)
    assert not bool(jnp.allclose(y_hat_1, decoded_mean))
