# source: https://github.com/PritRaj1/JAX-ThermoEBM/blob/b7848e94c9c48e2f51cb943298b3a1b2b2d0d8be/src/pipeline/scan_batch.py (fixed in commit 0b09294 "trying to debug nans": scan_batch.py deleted, main.py now does `for x, _ in test_loader:` around a top-level `jax.jit(train_step, ...)`)
# observed on jax 0.10.2 CPU: `next(iter(train_loader))` runs once while lax.scan traces train_batch, so every scan step trains on the same first batch (the loader serves 1 of its 4 batches per epoch); train_batch/val_batch are fresh @jax.jit closures made on every epoch call, so each epoch retraces and recompiles the scan
# gap: other
# observed: line 83 train_batch is a new @jax.jit closure on every train_epoch call: 1 backend compile on each later epoch (counted with jax.monitoring)
# observed: line 86 next(iter(train_loader)) runs once at scan trace time: the loader serves 1 of its 4 batches per epoch and the result equals 4 steps on that one batch
# observed: line 103 val_batch is a new @jax.jit closure on every val_epoch call: 1 backend compile on each later epoch
# observed: line 106 next(iter(val_loader)) runs once at trace time: 1 of 2 validation batches per epoch, used for both scan steps
# added: the imports of the stand-ins below; train_step/validate are small stand-ins for src/pipeline/batch_steps.py (which vmaps thermodynamic EBM/generator losses); NumpyLoader is a stand-in for the repository's torch DataLoader subclass (torch is not installed); the __main__ block replaces main.py's epoch loop
import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import lax


class NumpyLoader:
    """Stand-in for src.utils.helper_functions.NumpyLoader (a torch DataLoader)."""

    def __init__(self, data, batch_size=1, shuffle=False, seed=0):
        self.data, self.batch_size, self.shuffle = data, batch_size, shuffle
        self.rng = np.random.default_rng(seed)
        self.served = []

    def __len__(self):
        return len(self.data) // self.batch_size

    def __iter__(self):
        idx = self.rng.permutation(len(self.data)) if self.shuffle else np.arange(len(self.data))
        for b in range(len(self)):
            x = self.data[idx[b * self.batch_size:(b + 1) * self.batch_size]]
            self.served.append(x)
            yield x, np.zeros(len(x))


def _loss(params_tup, x, fwd_fcn_tup, temp_schedule):
    e = fwd_fcn_tup[0](params_tup[0], x)
    g = fwd_fcn_tup[1](params_tup[1], x)
    return jnp.mean((e - 1.0) ** 2) + temp_schedule[-1] * jnp.mean((g + 1.0) ** 2)


def train_step(key, x, params_tup, opt_state_tup, optimiser_tup, fwd_fcn_tup, temp_schedule):
    """Stand-in for src.pipeline.batch_steps.train_step."""
    key, _ = jax.random.split(key)
    loss, grads = jax.value_and_grad(_loss)(params_tup, x, fwd_fcn_tup, temp_schedule)
    new_params, new_states = [], []
    for i in range(len(optimiser_tup)):
        updates, st = optimiser_tup[i].update(grads[i], opt_state_tup[i], params_tup[i])
        new_params.append(optax.apply_updates(params_tup[i], updates))
        new_states.append(st)
    grad_var = jnp.var(grads[0]) + jnp.var(grads[1])
    return key, tuple(new_params), tuple(new_states), loss, grad_var


def validate(key, x, params_tup, fwd_fcn_tup, temp_schedule):
    """Stand-in for src.pipeline.batch_steps.validate."""
    key, _ = jax.random.split(key)
    loss, grads = jax.value_and_grad(_loss)(params_tup, x, fwd_fcn_tup, temp_schedule)
    return key, loss, jnp.var(grads[0]) + jnp.var(grads[1])


def train_epoch(
    key,
    train_loader,
    initial_params_tup,
    initial_opt_state_tup,
    optimiser_tup,
    fwd_fcn_tup,
    temp_schedule,
):
    """
    Function to train the model for one epoch.

    Args:
    - key: PRNG key
    - train_loader: training data loader
    - initial_params_tup: initial model parameters and epoch start
    - initial_opt_state_tup: initial optimiser states
    - optimiser_tup: tuple of optimisers
    - fwd_fcn_tup: tuple of model forward passes
    - temp_schedule: temperature schedule
    """

    @jax.jit  # expect: JIT301
    def train_batch(carry, idx):
        key, params_old, opt_state_old = carry
        x, _ = next(iter(train_loader))  # expect: JIT204  # tolerate: JIT201
        key, params_new, opt_state_new, loss, grad_var = train_step(
            key, x, params_old, opt_state_old, optimiser_tup, fwd_fcn_tup, temp_schedule
        )
        return (key, params_new, opt_state_new), (loss, grad_var)

    initial_state_train = (key, initial_params_tup, initial_opt_state_tup)

    (final_key, final_params, final_opt_state), (losses, grads) = lax.scan(
        f=train_batch, init=initial_state_train, xs=None, length=len(train_loader)
    )

    return final_key, final_params, final_opt_state, jnp.sum(losses), jnp.sum(grads)


def val_epoch(init_key, val_loader, params_tup, fwd_fcn_tup, temp_schedule):

    @jax.jit  # expect: JIT301
    def val_batch(carry, idx):
        key = carry
        x, _ = next(iter(val_loader))  # expect: JIT204  # tolerate: JIT201
        key, loss, grad_var = validate(key, x, params_tup, fwd_fcn_tup, temp_schedule)

        return key, (loss, grad_var)

    final_key, (losses, grads) = lax.scan(
        f=val_batch, init=init_key, xs=None, length=len(val_loader)
    )

    return final_key, jnp.sum(losses), jnp.sum(grads)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, dur, **kw: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None)

    rng = np.random.default_rng(0)
    train_data = rng.normal(size=(32, 3)).astype(np.float32)
    val_data = rng.normal(size=(16, 3)).astype(np.float32)
    test_loader = NumpyLoader(train_data, batch_size=8, shuffle=True)
    val_loader = NumpyLoader(val_data, batch_size=8, shuffle=False)

    fwd = lambda w, x: x @ w
    params_tup = (jnp.ones(3), jnp.ones(3))
    fwd_fcn_tup = (fwd, fwd)
    optimiser_tup = (optax.sgd(0.1), optax.sgd(0.1))
    opt_state_tup = tuple(o.init(p) for o, p in zip(optimiser_tup, params_tup))
    temp_schedule = jnp.linspace(0.0, 1.0, 5)
    key = jax.random.PRNGKey(0)

    train_compiles, val_compiles = [], []
    for epoch in range(3):
        served_before, params_before, opt_before = len(test_loader.served), params_tup, opt_state_tup
        n = len(compiles)
        key, params_tup, opt_state_tup, train_loss, train_grad_var = train_epoch(
            key, test_loader, params_tup, opt_state_tup, optimiser_tup, fwd_fcn_tup, temp_schedule)
        train_compiles.append(len(compiles) - n)
        served = test_loader.served[served_before:]
        # line 86: only one batch is drawn per epoch although the scan runs len(test_loader) = 4 steps
        assert len(served) == 1 and len(test_loader) == 4, (len(served), len(test_loader))
        # ... and the result equals training 4 times on that same batch
        ref_p, ref_s, k = params_before, opt_before, None
        for _ in range(len(test_loader)):
            k, ref_p, ref_s, _, _ = train_step(jax.random.PRNGKey(0), jnp.asarray(served[0]), ref_p, ref_s,
                                               optimiser_tup, fwd_fcn_tup, temp_schedule)
        assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(ref_p, params_tup))

        vserved_before = len(val_loader.served)
        n = len(compiles)
        key, val_loss, val_grad_var = val_epoch(key, val_loader, params_tup, fwd_fcn_tup, temp_schedule)
        val_compiles.append(len(compiles) - n)
        # line 106: likewise one validation batch per epoch instead of 2
        assert len(val_loader.served) - vserved_before == 1 and len(val_loader) == 2

    # lines 83 and 103: every epoch makes new jitted closures -> retrace + recompile each epoch
    print("backend compiles per epoch: train", train_compiles, "val", val_compiles)
    assert all(c >= 1 for c in train_compiles[1:]) and all(c >= 1 for c in val_compiles[1:])
    print("OK: 1 batch served per epoch; recompiled every epoch")
