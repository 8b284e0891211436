# source: https://github.com/teddykoker/learning-to-learn-jax/blob/3b64c993e5449421cae9468259683700ac39c34e/tasks.py (and eval.py at the same commit, the hand-optimizer learning-rate sweep)
# observed on jax 0.10.2 CPU: see the observed line below; every quadratic_task call builds a new @jax.jit function f, so the sweep compiles f once per learning rate
# gap: per-call-recompile
# added: eval_sweep() is the hand-optimizer part of eval() from eval.py with argparse values inlined, the
# matplotlib plotting dropped and the optimizer list cut to "sgd"; small batch_size/dim; the __main__ block.
# observed: line 24 @jax.jit on the local f inside quadratic_task: 7 calls of quadratic_task log 14 'Compiling jit(f)' (value_and_grad pieces compiled afresh every call; a hoisted f would compile them once)
from functools import partial

import jax
from jax import vmap
import jax.numpy as jnp
import optax


def quadratic_data(rng, batch_size=128, dim=10):
    keys = jax.random.split(rng, 3)
    w = jax.random.normal(keys[0], (batch_size, dim, dim))
    y = jax.random.normal(keys[1], (batch_size, dim))
    theta = jax.random.normal(keys[2], (batch_size, dim))
    return w, y, theta


def quadratic_task(w, y, theta, opt_fn, opt_state, steps=100):
    @jax.jit  # expect: JIT301
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


HAND_OPTIMIZERS = {
    "sgd": optax.sgd,
    "adam": optax.adam,
    "rmsprop": partial(optax.rmsprop),
    "nag": partial(optax.sgd, momentum=0.9, nesterov=True),
}


def eval_sweep(seed=0, optimizers=("sgd",), batch_size=4, dim=3):
    rng = jax.random.PRNGKey(seed)
    w, y, theta = quadratic_data(rng, batch_size, dim)

    for name, optimizer in HAND_OPTIMIZERS.items():
        if name not in optimizers:
            continue

        best_losses = None
        for learning_rate in jnp.logspace(-2, 1, num=7):
            opt = optimizer(learning_rate=learning_rate)
            opt_state = opt.init(theta)
            losses, *_ = quadratic_task(w, y, theta, opt_state=opt_state, opt_fn=opt.update)

            if best_losses is None or losses[-1] < best_losses[-1]:
                best_losses = losses
                print(f"{name}, best lr: {learning_rate:.0e}")
    return best_losses


if __name__ == "__main__":
    import logging

    compiled = []

    class _Catch(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if msg.startswith("Compiling jit(f)") or msg.startswith("Compiling f "):
                compiled.append(msg)

    handler = _Catch()
    logging.getLogger("jax").addHandler(handler)
    jax.config.update("jax_log_compiles", True)
    eval_sweep()
    jax.config.update("jax_log_compiles", False)
    logging.getLogger("jax").removeHandler(handler)
    print("compilations of f:", len(compiled))
    assert len(compiled) == 2 * 7, compiled
