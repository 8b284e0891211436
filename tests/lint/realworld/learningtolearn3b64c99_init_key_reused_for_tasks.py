# source: https://github.com/teddykoker/learning-to-learn-jax/blob/3b64c993e5449421cae9468259683700ac39c34e/train.py (with model.py and tasks.py at the same commit)
# observed on jax 0.10.2 CPU: see the observed line below; rng is consumed by LSTMOptimizer(rng) and then split again, so the first task's data key is the key that initialised lstm2 and the carried rng is lstm1's key
# gap: flow-sensitive
# added: a stub for wandb (init/log no-ops, not installed); train() takes an argparse.Namespace built in __main__ with small
# sizes and model_path=os.devnull; the __main__ block. (The @jax.jit on the local f in quadratic_task is left unlabelled
# here: in this file quadratic_task only runs while train_step is traced once.)
# observed: line 110 split(rng) after LSTMOptimizer(rng) consumed rng: the subkey passed to quadratic_data equals the key LSTMOptimizer gave lstm2, and the new rng equals lstm1's key
from argparse import ArgumentParser, Namespace
from functools import partial
import os

import equinox as eqx
import jax
from jax import vmap
import jax.numpy as jnp
import optax


class wandb:  # stand-in: not installed
    @staticmethod
    def log(*args, **kwargs):
        pass


class LSTMOptimizer(eqx.Module):
    lstm1: eqx.nn.LSTMCell
    lstm2: eqx.nn.LSTMCell
    fc: eqx.nn.Linear
    hidden_units: int = 32

    def __init__(self, key):
        keys = jax.random.split(key, 3)
        self.lstm1 = eqx.nn.LSTMCell(1, self.hidden_units, key=keys[0])
        self.lstm2 = eqx.nn.LSTMCell(self.hidden_units, self.hidden_units, key=keys[1])
        self.fc = eqx.nn.Linear(self.hidden_units, 1, key=keys[2])

    @partial(jax.vmap, in_axes=(None, 0, 0))
    @partial(jax.vmap, in_axes=(None, 0, 0))
    def __call__(self, gradient, state):
        # gradients of optimizee do not depend on optimizer
        gradient = jax.lax.stop_gradient(gradient)

        # expand parameter dimension to extra batch dimension so that network
        # is "coodinatewise"
        gradient = gradient[..., None]

        carry1, carry2 = state
        carry1 = self.lstm1(gradient, carry1)
        carry2 = self.lstm2(carry1[0], carry2)
        update = self.fc(carry2[0])
        update = update[..., 0]  # remove last dimension
        return update, (carry1, carry2)

    def initialize_carry(self, input_shape):
        shape = input_shape + (self.hidden_units,)
        return (
            (jnp.zeros(shape), jnp.zeros(shape)),
            (jnp.zeros(shape), jnp.zeros(shape)),
        )


def quadratic_data(rng, batch_size=128, dim=10):
    keys = jax.random.split(rng, 3)
    w = jax.random.normal(keys[0], (batch_size, dim, dim))
    y = jax.random.normal(keys[1], (batch_size, dim))
    theta = jax.random.normal(keys[2], (batch_size, dim))
    return w, y, theta


def quadratic_task(w, y, theta, opt_fn, opt_state, steps=100):
    @jax.jit
    def f(theta):
        product = vmap(jnp.matmul)(w, theta)
        return jnp.mean(jnp.sum((product - y) ** 2, axis=1))

    losses = []
    for _ in range(steps):
        loss, grads = jax.value_and_grad(f)(theta)
        updates, opt_state = opt_fn(grads, opt_state)
        theta += updates
        losses.append(loss)

    return jnp.stack(losses), theta, opt_state


def train(args):

    rng = jax.random.PRNGKey(seed=args.seed)

    lstm_opt = LSTMOptimizer(rng)
    lstm_state = lstm_opt.initialize_carry((args.batch_size, args.dim))

    meta_opt = optax.adam(learning_rate=args.learning_rate)
    meta_opt_state = meta_opt.init(lstm_opt)

    @eqx.filter_jit
    def train_step(opt, w, y, theta, state):
        def loss_fn(opt):
            losses, _theta, _state = quadratic_task(
                w, y, theta, opt, state, args.unroll_steps
            )
            return losses.sum(), (_theta, _state)

        (loss, (_theta, _state)), grads = eqx.filter_value_and_grad(loss_fn, has_aux=True)(opt)
        return loss, grads, _theta, _state

    best_loss = jnp.inf

    for _ in range(args.steps):
        rng, subkey = jax.random.split(rng)  # expect: JIT502
        w, y, theta = quadratic_data(subkey, args.batch_size, args.dim)
        lstm_state = lstm_opt.initialize_carry((args.batch_size, args.dim))
        meta_loss = 0.0

        for _ in range(args.unrolls):
            loss, grads, theta, lstm_state = train_step(lstm_opt, w, y, theta, lstm_state)
            updates, meta_opt_state = meta_opt.update(grads, meta_opt_state)
            lstm_opt = optax.apply_updates(lstm_opt, updates)
            meta_loss += loss

        if meta_loss < best_loss:
            best_loss = meta_loss
            eqx.tree_serialise_leaves(args.model_path, lstm_opt)

        wandb.log({"loss": meta_loss})

    wandb.log({"best_loss": best_loss})


if __name__ == "__main__":
    args = Namespace(seed=0, batch_size=4, dim=3, unroll_steps=5, unrolls=2,
                     learning_rate=1e-2, steps=2, model_path=os.devnull)
    data_keys = []
    _real_quadratic_data = quadratic_data

    def quadratic_data(rng, *a, **k):  # spy: record the key each task is drawn from
        data_keys.append(rng)
        return _real_quadratic_data(rng, *a, **k)

    train(args)
    init_keys = jax.random.split(jax.random.PRNGKey(args.seed), 3)  # the keys LSTMOptimizer.__init__ used
    first_data_key = data_keys[0]
    print("first task key:", first_data_key, "lstm2 init key:", init_keys[1])
    assert bool(jnp.all(first_data_key == init_keys[1]))
    second_data_key = data_keys[1]
    carried_rng = jax.random.split(jax.random.PRNGKey(args.seed))[0]
    assert bool(jnp.all(carried_rng == init_keys[0]))  # the rng carried into step 2 is lstm1's init key
    assert bool(jnp.all(second_data_key == jax.random.split(init_keys[0])[1]))
    print("task data drawn from the model's init keys")
