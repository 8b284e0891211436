# source: https://github.com/boingkiri/diffusion/blob/6635a6850ada50e660a157e0c0ab3b15d23e5b66/ddpm.py
# observed on jax 0.10.2 CPU: runs clean: the DDPM object jits its loss, gradient, update and
#   sampling step once, in __init__, and keeps its PRNG key as eager state, splitting
#   self.rand_key and storing the new key on every learning_from and p_sample call (outside any
#   trace), so each training step and each sampling step draws fresh timesteps, noise and dropout
#   keys; 5 training steps and a 20-step sampling loop compile the gradient, the update and the
#   sampling step once each. (p_sample hands its normal and dropout keys to p_sample_jit in the
#   other order than its parameters name them, which changes nothing: both are fresh keys.)
# gap: stale-state-attributes
# Kept: ddpm.py of the repository's first commit as written. Added: a small flax stand-in for
#   the repository's UNet (unet.py, called as apply({'params': ...}, x=..., t=..., train=...,
#   rngs={'dropout': ...})), TrainState with params_ema as in jax_utils.py at the same commit,
#   and the __main__ block (8x8x3 images instead of CIFAR-10, 20 diffusion steps instead of 1000).
from typing import Dict, Tuple, Optional

import jax
import jax.numpy as jnp

from flax import linen as nn

from flax.training import train_state

class DDPM():
    def __init__(self, eps_model: nn.Module, n_steps: int):
        self.eps_model = eps_model

        self.n_steps = n_steps

        self.rand_key = jax.random.PRNGKey(42)
        self.beta = jnp.linspace(0.0001, 0.002, n_steps)
        self.alpha = 1. - self.beta
        self.alpha_bar = jnp.cumprod(self.alpha, axis=0)
        self.sqrt_alpha = jnp.sqrt(self.alpha)
        self.sqrt_alpha_bar = jnp.sqrt(self.alpha_bar)
        self.sqrt_one_minus_alpha_bar = jnp.sqrt(1 - self.alpha_bar)


        def loss_fn(params, perturbed_data, time, real, dropout_key):
            pred_noise = self.eps_model.apply(
                {'params': params}, x=perturbed_data, t=time, train=True, rngs={'dropout': dropout_key})
            loss = jnp.mean((pred_noise - real) ** 2)
            return loss
        
        def update_grad(state:train_state.TrainState, grad):
            return state.apply_gradients(grads=grad)
        
        def p_sample_jit(params, perturbed_data, time, dropout_key, normal_key):
            pred_noise = self.eps_model.apply(
                {'params': params}, x=perturbed_data, t=time, train=False, rngs={'dropout': dropout_key})

            beta = jnp.take(self.beta, time)
            sqrt_one_minus_alpha_bar = jnp.take(self.sqrt_one_minus_alpha_bar, time)
            eps_coef = beta / sqrt_one_minus_alpha_bar
            eps_coef = eps_coef[:, None, None, None]

            # alpha = jnp.take(self.alpha, time)
            sqrt_alpha = jnp.take(self.sqrt_alpha, time)
            sqrt_alpha = sqrt_alpha[:, None, None, None]
            

            mean = (perturbed_data - eps_coef * pred_noise) / sqrt_alpha

            # var = jnp.take(self.sigma2, time, -1)
            # var = jnp.take(self.sigma2, time)
            var = beta[:, None, None, None]
            eps = jax.random.normal(normal_key, perturbed_data.shape)

            return mean + (var ** 0.5) * eps
        
        self.loss_fn = jax.jit(loss_fn)
        self.grad_fn = jax.jit(jax.value_and_grad(self.loss_fn))
        self.update_grad = jax.jit(update_grad)
        self.p_sample_jit = jax.jit(p_sample_jit)

    def q_xt_x0(self, x0, t):
        mean_coeff = jnp.take(self.sqrt_alpha_bar, t)
        mean = mean_coeff[:, None, None, None] * x0

        std = jnp.take(self.sqrt_one_minus_alpha_bar, t)
        std = std[:, None, None, None]
        return mean, std
    
    def q_sample(self, x0, t, eps):
        # Sample from q(x_t|x_0)

        if eps is None:
            # TODO: need to check
            key, normal_key = jax.random.split(self.rand_key)
            self.rand_key = key
            eps = jax.random.normal(normal_key, x0.shape)
        mean, std = self.q_xt_x0(x0, t)
        return mean + std * eps, eps
    
    def p_sample(self, param, xt, t):
        # Sample from p_theta(x_{t-1}|x_t)
        t = jnp.array(t)
        t = jnp.repeat(t, xt.shape[0])

        key, normal_key, dropout_key = jax.random.split(self.rand_key, 3)
        self.rand_key = key
        return self.p_sample_jit(param, xt, t, normal_key, dropout_key)

    def learning_from(self, state, x0):
        batch_size = x0.shape[0]
        key, int_key, normal_key, dropout_key = jax.random.split(self.rand_key, 4)
        self.rand_key = key

        noise = jax.random.normal(normal_key, x0.shape)
        t = jax.random.randint(int_key, (batch_size, ), 0, self.n_steps)
        xt, noise = self.q_sample(x0, t, eps=noise)
        
        loss, grad = self.grad_fn(state.params, xt, t, noise, dropout_key)
        new_state = self.update_grad(state, grad)
        return loss, new_state


class TinyEps(nn.Module):
    # stand-in for unet.UNet
    @nn.compact
    def __call__(self, x, t, train):
        h = x.reshape((x.shape[0], -1))
        h = jnp.concatenate([h, t[:, None].astype(h.dtype) / 1000.0], -1)
        h = nn.relu(nn.Dense(32)(h))
        h = nn.Dropout(0.1, deterministic=not train)(h)
        return nn.Dense(x.shape[1] * x.shape[2] * x.shape[3])(h).reshape(x.shape)


from typing import Any
import optax


class TrainState(train_state.TrainState):
  params_ema: Any = None


if __name__ == "__main__":
    import numpy as np
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    model = TinyEps()
    rng, param_rng, dropout_rng = jax.random.split(jax.random.PRNGKey(42), 3)
    x0 = jax.random.normal(jax.random.PRNGKey(1), (4, 8, 8, 3))
    params = model.init({"params": param_rng, "dropout": dropout_rng},
                        x=x0, t=jnp.ones([4]), train=False)["params"]
    state = TrainState.create(apply_fn=model.apply, params=params, params_ema=params,
                              tx=optax.adam(2e-4))
    ddpm = DDPM(model, 20)
    keys_seen = []
    for _ in range(5):
        keys_seen.append(np.asarray(jax.random.key_data(ddpm.rand_key)))
        loss, state = ddpm.learning_from(state, x0)
    assert len({k.tobytes() for k in keys_seen}) == 5
    n_train = sum(1 for f in compiles if f and ("loss_fn" in f or "update_grad" in f))
    xt = jax.random.normal(jax.random.PRNGKey(2), (4, 8, 8, 3))
    xs = []
    for t in reversed(range(20)):
        xt = ddpm.p_sample(state.params, xt, t)
        xs.append(xt)
    n_sample = sum(1 for f in compiles if f and "p_sample_jit" in f)
    print("loss", float(loss), "compiles: training", n_train, "sampling", n_sample)
    assert n_train == 2 and n_sample == 1, compiles
    assert bool(jnp.all(jnp.isfinite(xt)))
