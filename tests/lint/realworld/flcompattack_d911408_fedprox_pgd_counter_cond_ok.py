# source: https://github.com/codymlewis/FL_Compression_Attack_Eval/blob/d91140804206d900a7c3ed5683dd11f845d96897/fl/client/fedprox.py
#   (the FedProx client optimiser of a federated-learning evaluation in JAX: an optax
#   transformation that adds the proximal term mu * (w - w_t) and keeps the round's
#   starting parameters w_t and an epoch counter in its state)
# observed on jax 0.10.2 CPU: runs clean under jit: the counter is a traced array updated
#   with (counter + 1) % local_epochs, and the choice of the round's starting parameters is
#   a lax.cond on counter == 0, so no Python branch reads a tracer; one jitted local step,
#   built once, compiles once over three rounds of local_epochs steps, and the stored
#   w_t is refreshed at the first step of every round.
# gap: exemption-vs-JAX
# added: the __main__ block: a least-squares loss, one jitted local step built once (as
#   main.py's client_opt = fl.client.fedprox.pgd(optax.sgd(0.1), 0.01,
#   local_epochs=local_epochs)), and three rounds of local_epochs steps.
from typing import NamedTuple

import chex
import jax
import jax.numpy as jnp
import optax


def pgd(opt, mu, local_epochs=1):
    """
    Perturbed gradient descent proposed as the mechanism for FedProx in `https://arxiv.org/abs/1812.06127 <https://arxiv.org/abs/1812.06127>`_
    """
    return optax.chain(
        _add_prox(mu, local_epochs),
        opt,
    )


class PgdState(NamedTuple):
    """Perturbed gradient descent optimizer state"""
    params: optax.Params
    """Model parameters from most recent round."""
    counter: chex.Array
    """Counter for the number of epochs, determines when to update params."""


def _add_prox(mu: float, local_epochs: int) -> optax.GradientTransformation:
    """
    Adds a regularization term to the optimizer.
    """

    def init_fn(params: optax.Params) -> PgdState:
        return PgdState(params, jnp.array(0))

    def update_fn(grads: optax.Updates, state: PgdState, params: optax.Params) -> tuple:
        if params is None:
            raise ValueError("params argument required for this transform")
        updates = jax.tree_util.tree_map(lambda g, w, wt: g + mu * ((w - g) - wt), grads, params, state.params)
        return updates, PgdState(
            jax.lax.cond(state.counter == 0, lambda _: params, lambda _: state.params, None),
            (state.counter + 1) % local_epochs
        )

    return optax.GradientTransformation(init_fn, update_fn)


if __name__ == "__main__":
    import numpy as np

    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, fun_name=None, **kw: compiled.append(fun_name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    local_epochs = 4
    client_opt = pgd(optax.sgd(0.1), 0.01, local_epochs=local_epochs)

    def loss(params, X, y):
        return jnp.mean((X @ params["w"] + params["b"] - y) ** 2)

    @jax.jit
    def local_step(params, opt_state, X, y):
        loss_val, grads = jax.value_and_grad(loss)(params, X, y)
        updates, opt_state = client_opt.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss_val

    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3)).astype(np.float32)
    y = (X @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
    opt_state = client_opt.init(params)

    for r in range(3):
        round_start = params
        for e in range(local_epochs):
            params, opt_state, loss_val = local_step(params, opt_state, X, y)
            prox_state = opt_state[0]
            assert int(prox_state.counter) == (e + 1) % local_epochs
            # the round's starting parameters are stored at the first step
            assert all(
                bool(jnp.array_equal(a, b))
                for a, b in zip(jax.tree_util.tree_leaves(prox_state.params),
                                jax.tree_util.tree_leaves(round_start))
            )
    assert compiled.count("jit(local_step)") == 1, compiled
    assert bool(jnp.isfinite(loss_val))
