# source: https://github.com/jeffminlin/vmcnet/pull/18
#   (the code as of e600c0e^, d9abdf3: vmcnet/train/vmc.py vmc_loop and
#   vmcnet/mcmc/metropolis.py make_jitted_walker_fn / walk_data; PR #18 "Remove donation of
#   XLA buffers": "we forgot to remove the `donate_argnums` argument to our pmap calls when we
#   switched to saving old params")
# observed on jax 0.10.2 CPU (2 host devices forced through XLA_FLAGS): vmc_loop keeps
#   `old_data = data` and `old_key = key` to checkpoint the state from before the epoch, then
#   calls walker_fn, whose pmap donates (data, key) with donate_argnums=(1, 2); the
#   `old_data` and `old_key` that it hands to the checkpointing afterwards are deleted
#   arrays (`is_deleted()` is True for both in each epoch, and converting them as np.savez does raises
#   RuntimeError: Array has been deleted). Excerpt: vmc_loop (docstring shortened),
#   walk_data and make_jitted_walker_fn as written. Added: the XLA_FLAGS line; stand-ins for
#   vmcnet.utils (distribute.pmap / pmean_if_pmap / get_first, with pmean_if_pmap always
#   inside the pmap here; checkpoint.initialize_checkpointing_metrics / log_vmc_loop_state;
#   checkpoint.save_metrics_and_handle_checkpoints, which converts the state to NumPy as
#   np.savez does), a Gaussian random-walk metropolis step and a pmapped gradient-free
#   update_param_fn (vmcnet's own update fn did not donate by then), and the __main__ block,
#   which distributes the state with a pmapped identity as vmcnet does.
# gap: cross-module
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import functools
from types import SimpleNamespace
from typing import Callable, Dict, Tuple, TypeVar

import numpy as np
import jax
import jax.numpy as jnp

D = TypeVar("D")
P = TypeVar("P")  # represents a pytree or pytree-like object containing model params
S = TypeVar("S")  # represents optimizer state

# --- stand-ins for vmcnet.utils -------------------------------------------------------
PMAP_AXIS_NAME = "pmap_axis"


def _save_metrics_and_handle_checkpoints(epoch, params, optimizer_state, data, key, metrics,
                                         nchains, running_energy_and_variance,
                                         checkpoint_metric, logdir=None, variance_scale=10.0,
                                         checkpoint_every=None, checkpoint_dir="checkpoints"):
    # stand-in: vmcnet saves (params, optimizer_state, data, key) with np.savez
    if logdir is None or metrics is None:
        return checkpoint_metric, ""
    state = jax.tree_util.tree_map(np.asarray, (params, optimizer_state, data, key))
    return checkpoint_metric, "checkpoint saved"


utils = SimpleNamespace(
    distribute=SimpleNamespace(
        pmap=functools.partial(jax.pmap, axis_name=PMAP_AXIS_NAME),
        pmean_if_pmap=functools.partial(jax.lax.pmean, axis_name=PMAP_AXIS_NAME),
        get_first=lambda obj: jax.tree_util.tree_map(lambda x: x[0], obj),
    ),
    checkpoint=SimpleNamespace(
        initialize_checkpointing_metrics=lambda checkpoint_dir, nhistory_max, logdir,
        checkpoint_every: (checkpoint_dir, jnp.inf, []),
        save_metrics_and_handle_checkpoints=_save_metrics_and_handle_checkpoints,
        log_vmc_loop_state=lambda epoch, metrics, checkpoint_str: None,
    ),
)
# ---------------------------------------------------------------------------------------


def walk_data(
    nsteps: int,
    data: D,
    params: P,
    key: jnp.ndarray,
    metrop_step_fn: Callable[[D, P, jnp.ndarray], Tuple[jnp.float32, D, jnp.ndarray]],
) -> Tuple[jnp.float32, D, jnp.ndarray]:
    """Take multiple Metropolis-Hastings steps, via jax.lax.scan."""

    def step_fn(carry, x):
        del x
        accept_prob, data, key = metrop_step_fn(carry[1], params, carry[2])
        return (carry[0] + accept_prob, data, key), None

    out = jax.lax.scan(step_fn, (0.0, data, key), xs=None, length=nsteps)
    accept_sum, data, key = out[0]
    return accept_sum / nsteps, data, key


def make_jitted_walker_fn(
    nsteps: int,
    metrop_step_fn: Callable[[P, D, jnp.ndarray], Tuple[jnp.float32, D, jnp.ndarray]],
    apply_pmap: bool = True,
) -> Callable[[P, D, jnp.ndarray], Tuple[jnp.float32, D, jnp.ndarray]]:
    """Factory to create a function which takes multiple Metropolis steps.

    Returns:
        Callable: funciton with signature
            (params, data, key) -> (mean accept prob, new data, new key)
        with jax.pmap optionally applied if pmapped is True, and jax.jit applied if
        apply_pmap is False. Because it is totally pure, the original (data, key)
        buffers are deleted in the pmapped version via the `donate_argnums` argument so
        that XLA is potentially more memory-efficient on the GPU. See :func:`jax.pmap`.
    """

    def walker_fn(params, data, key):
        accept_ratio, data, key = walk_data(nsteps, data, params, key, metrop_step_fn)
        accept_ratio = utils.distribute.pmean_if_pmap(accept_ratio)
        return accept_ratio, data, key

    if not apply_pmap:
        return jax.jit(walker_fn)

    pmapped_walker_fn = utils.distribute.pmap(walker_fn, donate_argnums=(1, 2))

    def pmapped_walker_fn_with_single_accept_ratio(params, data, key):
        accept_ratio, data, key = pmapped_walker_fn(params, data, key)
        accept_ratio = utils.distribute.get_first(accept_ratio)
        return accept_ratio, data, key

    return pmapped_walker_fn_with_single_accept_ratio


def vmc_loop(
    params: P,
    optimizer_state: S,
    data: D,
    nchains: int,
    nepochs: int,
    walker_fn: Callable[[P, D, jnp.ndarray], Tuple[jnp.float32, D, jnp.ndarray]],
    update_param_fn: Callable[[D, P, S, jnp.ndarray], Tuple[P, S, Dict, jnp.ndarray]],
    key: jnp.ndarray,
    logdir: str = None,
    checkpoint_every: int = None,
    checkpoint_dir: str = "checkpoints",
    checkpoint_variance_scale: float = 10.0,
    nhistory_max: int = 200,
) -> Tuple[P, S, D, jnp.ndarray]:
    """Main Variational Monte Carlo loop routine."""
    (
        checkpoint_dir,
        checkpoint_metric,
        running_energy_and_variance,
    ) = utils.checkpoint.initialize_checkpointing_metrics(
        checkpoint_dir, nhistory_max, logdir, checkpoint_every
    )

    for epoch in range(nepochs):
        # Save state for checkpointing at the start of the epoch for two reasons:
        # 1. To save the model that generates the best energy and variance metrics,
        # rather than the model one parameter UPDATE after the best metrics.
        # 2. To ensure a fully consistent state can be reloading from a checkpoint, and
        # the exact subsequent behavior can be reproduced (if run on same machine).
        old_params = params
        old_state = optimizer_state
        old_data = data
        old_key = key

        accept_ratio, data, key = walker_fn(params, data, key)

        params, optimizer_state, metrics, key = update_param_fn(
            data, params, optimizer_state, key
        )

        if metrics is None:  # don't checkpoint if no metrics to checkpoint
            continue

        metrics["accept_ratio"] = accept_ratio

        (
            checkpoint_metric,
            checkpoint_str,
        ) = utils.checkpoint.save_metrics_and_handle_checkpoints(
            epoch,
            old_params,
            old_state,
            old_data,  # expect: JIT504
            old_key,  # expect: JIT504
            metrics,
            nchains,
            running_energy_and_variance,
            checkpoint_metric,
            logdir=logdir,
            variance_scale=checkpoint_variance_scale,
            checkpoint_every=checkpoint_every,
            checkpoint_dir=checkpoint_dir,
        )
        utils.checkpoint.log_vmc_loop_state(epoch, metrics, checkpoint_str)

    return params, optimizer_state, data, key


def _metrop_step(data, params, key):
    # stand-in metropolis step: Gaussian random walk on log|psi|^2 = -params * x^2
    key, subkey, acckey = jax.random.split(key, 3)
    proposal = data + 0.5 * jax.random.normal(subkey, data.shape)
    log_ratio = -params * (proposal ** 2 - data ** 2).sum(axis=-1)
    accept = jnp.log(jax.random.uniform(acckey, log_ratio.shape)) < log_ratio
    data = jnp.where(accept[:, None], proposal, data)
    return accept.mean(), data, key


@functools.partial(jax.pmap, axis_name=PMAP_AXIS_NAME)
def _pmapped_update(data, params, optimizer_state, key):
    # stand-in update_param_fn (no donation, as vmcnet's by then)
    energy = jax.lax.pmean(jnp.mean(params * (data ** 2).sum(axis=-1)), PMAP_AXIS_NAME)
    return params * 0.99, optimizer_state + 1, {"energy": energy, "variance": energy}, key


def _update_param_fn(data, params, optimizer_state, key):
    params, optimizer_state, metrics, key = _pmapped_update(data, params, optimizer_state, key)
    return params, optimizer_state, utils.distribute.get_first(metrics), key


if __name__ == "__main__":
    ndev = jax.local_device_count()
    params = jnp.full((ndev,), 0.5)
    optimizer_state = jnp.zeros((ndev,))
    data = jax.random.normal(jax.random.PRNGKey(0), (ndev, 8, 3))
    key = jax.random.split(jax.random.PRNGKey(1), ndev)
    # vmcnet distributes its state with a pmapped identity (broadcast_all_local_devices)
    broadcast_all_local_devices = utils.distribute.pmap(lambda x: x)
    params, optimizer_state, data, key = broadcast_all_local_devices(
        (params, optimizer_state, data, key))
    walker_fn = make_jitted_walker_fn(4, _metrop_step)

    seen = []

    def _checkpoint_spy(epoch, params, optimizer_state, data, key, *args, **kwargs):
        seen.append((data.is_deleted(), key.is_deleted()))
        try:
            return _save_metrics_and_handle_checkpoints(
                epoch, params, optimizer_state, data, key, *args, **kwargs)
        except RuntimeError as e:
            assert "deleted" in str(e), e
            return kwargs.get("checkpoint_metric", jnp.inf), "failed: " + str(e)

    utils.checkpoint.save_metrics_and_handle_checkpoints = _checkpoint_spy
    vmc_loop(params, optimizer_state, data, 8 * ndev, 2, walker_fn, _update_param_fn, key,
             logdir="logs")
    # observed: line 173 and line 174 hand the checkpointing the (data, key) that walker_fn
    # donated: both are deleted arrays in every epoch
    assert seen == [(True, True), (True, True)], seen
