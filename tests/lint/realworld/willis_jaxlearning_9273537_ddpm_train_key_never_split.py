# source: https://github.com/Willis1118/JAX_learning/blob/92735372c75177221556c8f45fbecf8ee85384ce/DDPM/train.py
#   (a DDPM on CIFAR-10 for a TPU v4-8; `training_key` is replicated once before the loop and
#   handed unchanged to the pmapped train_step at every step, through to the repository's
#   last commit; train_step splits it but returns only the new state and the loss)
# observed on jax 0.10.2 CPU: every training step draws the same timesteps `t` (and the same
#   noise) from the same training_key: the stand-in model records the `t` it is given, and
#   it is equal at every step (equal random draws).
# gap: other
# added: imports; ml_collections.ConfigDict replaced by types.SimpleNamespace (ml_collections is
#   not installed); a one-layer stand-in for the repository's UNet (model.py) that records the
#   `time` it sees with jax.debug.callback; the parts of diffusion.py that q_sample needs;
#   parse_batch and a loader of three random CIFAR-shaped batches standing in for the torch
#   CIFAR10 DataLoader (torch2jax.parse_batch reshapes to (local_devices, -1, ...) as here);
#   main() keeps the user's setup and loop without wandb, logging and sampling, with
#   num_epochs 1 instead of 500; the __main__ block.
import functools

import flax
from flax import jax_utils
from flax import linen as nn
from flax.training import train_state
import jax
from jax import lax
import jax.numpy as jnp
from jax import random
import types

ml_collections = types.SimpleNamespace(ConfigDict=types.SimpleNamespace)  # stand-in: not installed
import optax
import numpy as np

TIME_STEPS=1000

seen_t = []


class UNet(nn.Module):  # stand-in for model.UNet; records the timesteps it is given
    dim: int = 8

    @nn.compact
    def __call__(self, x, time):
        jax.debug.callback(lambda t: seen_t.append(np.asarray(t)), time)
        h = nn.Conv(self.dim, (3, 3))(x) + time[:, None, None, None] / 1000.0
        return nn.Conv(x.shape[-1], (3, 3))(nn.relu(h))


class VarScheduler:  # from diffusion.py
    def __init__(self, timesteps=1000):
        self.time = timesteps

    def linear_beta_schedule(self):
        beta_start = 0.0001
        beta_end = 0.02
        return jnp.linspace(beta_start, beta_end, self.time)


class Diffuser:  # from diffusion.py, the parts q_sample uses

    def __init__(self, timesteps=1000):
        self.time = timesteps
        scheduler = VarScheduler(timesteps)
        self.betas = scheduler.linear_beta_schedule()
        self.alphas = 1. - self.betas
        self.alphas_cumprod = jnp.cumprod(self.alphas, axis=0)
        self.sqrt_alphas_cumprod = jnp.sqrt(self.alphas_cumprod)
        self.sqrt_one_minus_alphas_cumprod = jnp.sqrt(1. - self.alphas_cumprod)

    @staticmethod
    def extract(a, t, x_shape):
        batch = x_shape[0]
        out = jnp.take_along_axis(a, t, axis=-1)
        return jnp.array(jnp.reshape(out, (batch, *((1,) * (len(x_shape) - 1)))))

    def q_sample(self, key, x_start, t, noise=None):
        '''
            forward diffusion process
        '''

        if noise is None:
            noise = jax.random.normal(key, x_start.shape)
        
        sqrt_alphas_cumprod_t = self.extract(self.sqrt_alphas_cumprod, t, x_start.shape)
        sqrt_one_minue_alphas_cumprod_t = self.extract(
            self.sqrt_one_minus_alphas_cumprod,
            t,
            x_start.shape
        )

        ## add noise to image
        return sqrt_alphas_cumprod_t * x_start + sqrt_one_minue_alphas_cumprod_t * noise


def parse_batch(batch):  # stand-in for torch2jax.parse_batch
    images, labels = batch
    local_device_count = jax.local_device_count()
    return {'images': images.reshape((local_device_count, -1) + images.shape[1:]), 'labels': labels}


def initialize(key, image_size, model):
    '''
        Init model params
        notice here we don't have dropout, so no need to init dropout with another key
    '''
    input_shape = (1, image_size, image_size, 3)
    @jax.jit
    def init(*args, **kwargs):
        return model.init(*args, **kwargs)
    variables = init({'params': key}, jnp.ones(input_shape), time=jnp.ones((input_shape[0],)))
    return variables['params']

def create_learning_rate(
    config: ml_collections.ConfigDict,
    base_learning_rate: float,
    steps_per_epoch: int
):
    '''
        create learning rate scheduler
    '''
    warmup_fn = optax.linear_schedule(
        init_value=0.,
        end_value=base_learning_rate,
        transition_steps=config.warmup_epochs * steps_per_epoch
    )

    cos_epoch = max(config.num_epochs - config.warmup_epochs, 1)
    cos_fn = optax.cosine_decay_schedule(
        init_value=base_learning_rate,
        decay_steps=cos_epoch * steps_per_epoch,
    )
    schedule_fn = optax.join_schedules(
        schedules=[warmup_fn, cos_fn],
        boundaries=[config.warmup_epochs * steps_per_epoch]
    )

    return schedule_fn

def train_step(key, state, batch, learning_rate_fn):
    '''
        perform a single training step
    '''

    key, noise_key, t_key, q_key = random.split(key, num=4)


    def loss_fn(params):
        '''
            loss function for training
        '''

        noise = random.normal(noise_key, batch.shape)
        t = random.randint(t_key, (batch.shape[0],), 0, TIME_STEPS)

        noisy_x = Diffuser().q_sample(q_key, batch, t, noise=noise)

        ## custom apply function; usually just model apply

        output = state.apply_fn(
            {'params': params},
            noisy_x,
            time=t,
        )

        loss = jnp.mean((output - noise) ** 2)
        return loss, (output, loss)
    
    step = state.step
    lr = learning_rate_fn(step)

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    aux, grads = grad_fn(state.params)
    grads = lax.pmean(grads, axis_name='batch')
    output, loss = aux[1]
    loss = lax.pmean(loss, axis_name='batch')
    
    ## apply updates to params
    new_state = state.apply_gradients(grads=grads) # --> auto grad & update state

    return new_state, loss

def create_train_state(
    rng,
    config: ml_collections.ConfigDict,
    model, 
    image_size, 
    learnng_rate_fn
):
    '''
        instantiate initial training state
    '''
    params = initialize(rng, image_size, model)
    tx = optax.sgd(
        learning_rate=learnng_rate_fn,
        momentum=config.momentum,
        nesterov=True,
    )
    state = train_state.TrainState.create(
        apply_fn=model.apply,
        params=params,
        tx=tx,
    )

    return state


def main():
    n_devices = jax.local_device_count()
    config = ml_collections.ConfigDict()
    config.momentum = 0
    config.num_workers = n_devices
    config.seed_pt = 42
    config.image_size = 32
    config.batch_size = 128
    config.momentum = 0
    config.dim = 128
    config.warmup_epochs = 20
    config.num_epochs = 1

    base_learning_rate = 0.001 * config.batch_size / 256

    rs = np.random.RandomState(0)
    train_loader = [(rs.randn(config.batch_size, 32, 32, 3).astype(np.float32), rs.randint(0, 10, config.batch_size))
                    for _ in range(3)]

    model = UNet()

    learning_rate_fn = create_learning_rate(config, base_learning_rate, 60)

    state_key, training_key, sample_key = random.split(random.PRNGKey(config.seed_pt), num=3)

    state = create_train_state(state_key, config, model, config.image_size, learning_rate_fn)
    step_offset = int(state.step)

    state = jax_utils.replicate(state)
    training_key = jax_utils.replicate(training_key)

    p_train_step = jax.pmap(
        functools.partial(train_step, learning_rate_fn=learning_rate_fn),
        axis_name='batch'
    )

    train_steps = 0
    loss = 0

    for epoch in range(config.num_epochs):
        print(f'Begin Trainning on epoch{epoch}')
        for batch in train_loader:
            batch = parse_batch(batch)

            ## state updated internally by TrainState.apply_gradients
            state, metrics = p_train_step(training_key, state, batch['images'])  # expect: JIT502

            train_steps += 1
            loss += metrics[0]

    return state


if __name__ == "__main__":
    state = main()
    jax.effects_barrier()
    # seen_t[0] is from model.init; the three steps saw three different batches of images:
    assert len(seen_t) == 4, len(seen_t)
    step_t = seen_t[1:]
    # observed: line 250 gives every step the same training_key, so each step draws the same t
    assert all(np.array_equal(step_t[0], t) for t in step_t[1:])
    print("timesteps drawn at each step are equal:", step_t[0][:8])
