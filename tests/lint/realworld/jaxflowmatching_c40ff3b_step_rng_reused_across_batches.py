# source: https://github.com/wangleiphy/jax-flow-matching/blob/54bebbf6beeb0d7add3d2ae02f75f7feed333ccf/main.py
#   (flow matching for particle systems; main.py before commit c40ff3b "Fix the reusing rng
#   issue.", and loss.py at the same commit)
# observed on jax 0.10.2 CPU: the epoch loop splits `step_rng` once per epoch and hands that
#   same key to the jitted `step` for every batch, so every batch of an epoch draws the same
#   noise x0 and the same times t (equal random draws; the recorded t of the first and the
#   second batch are equal).
# gap: other
# added: imports; `training` is moved from the script's __main__ block to module level;
#   `args` (argparse in the script) is a SimpleNamespace with batchsize 16; the vector-field
#   network (a haiku MLP from net.py) is a stand-in linear field that records the t it is
#   given through jax.debug.callback; X0, X1 and params are small inputs of our own;
#   `hk.Params` becomes `dict` (haiku is not installed); `from jax.config import config`
#   is now spelled `jax.config.update`; the __main__ block.
import types
import itertools
from functools import partial
from typing import NamedTuple

import numpy as np
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
from jax import random, vmap
import optax

args = types.SimpleNamespace(batchsize=16)
seen_t = []


def vec_field_net(params, x, t):  # stand-in for net.make_vec_field_net's haiku MLP
    jax.debug.callback(lambda tt: seen_t.append(np.asarray(tt)), t)
    return x @ params["w"] + params["b"] * t


# loss.py
def make_loss(vec_field_net):

    @partial(vmap, in_axes=(None, 0, 0, 0), out_axes=0)
    def _matching(params, x0, x1, t):
        x = t*x1 + (1 - t)*x0
        return jnp.sum(((x1 - x0) - vec_field_net(params, x, t))**2)

    def loss(params, x0, x1, t):
        m = _matching(params, x0, x1, t)
        m_mean = jnp.mean(m)
        m_std = jnp.std(m) / jnp.sqrt(m.shape[0])
        return m_mean, m_std

    return loss


class TrainingState(NamedTuple):
    params: dict
    opt_state: optax.OptState


loss = make_loss(vec_field_net)
value_and_grad = jax.value_and_grad(loss, argnums=0, has_aux=True)


'''training with samples'''
def training(rng, num_epochs, init_params, X0, X1, learning_rate, type_optim = optax.adam):

    @jax.jit
    def step(rng, i, state, x0, x1):
        rng, sample_rng = random.split(rng)
        x0 = random.normal(sample_rng, (x1.shape[0], x1.shape[1]))

        t = random.uniform(rng, (args.batchsize,))

        value, grad = value_and_grad(state.params, x0, x1, t)

        updates, opt_state = optimizer.update(grad, state.opt_state)
        params = optax.apply_updates(state.params, updates)

        return TrainingState(params, opt_state), value

    optimizer = type_optim(learning_rate)
    init_opt_state = optimizer.init(init_params)

    state = TrainingState(init_params, init_opt_state)

    itercount = itertools.count()
    loss_history = []
    for epoch in range(num_epochs):
        permute_rng, step_rng, rng = random.split(rng, 3)
        X0 = random.permutation(permute_rng, X0)
        X1 = random.permutation(permute_rng, X1)
        for batch_index in range(0, len(X1), args.batchsize):
            state, (d_mean, d_err) = step(step_rng, next(itercount), state, X0[batch_index:batch_index+args.batchsize], X1[batch_index:batch_index+args.batchsize])  # expect: JIT502
            print (epoch, d_mean)
            loss_history.append([d_mean, d_err])

    return state.params, loss_history


if __name__ == "__main__":
    rng = random.PRNGKey(42)
    data_rng, init_rng, rng = random.split(rng, 3)
    X1 = random.normal(data_rng, (64, 4))
    X0 = jnp.zeros((64, 4))
    params = {"w": 0.1 * random.normal(init_rng, (4, 4)), "b": jnp.zeros(4)}
    trained_params, loss_history = training(rng, 1, params, X0, X1, 1e-3)
    jax.effects_barrier()
    t_first = np.stack(seen_t[: args.batchsize])
    t_second = np.stack(seen_t[args.batchsize : 2 * args.batchsize])
    # observed: line 91 hands every batch of the epoch the same step_rng: batch 1 and batch 2
    #   draw the same times t
    assert len(seen_t) == 4 * args.batchsize
    assert np.array_equal(t_first, t_second)
