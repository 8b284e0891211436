# source: https://github.com/PritRaj1/JAX-ThermoEBM/blob/0b092944769b280537d6732273170b79606e2df6/main.py (the fix for the scan_batch.py bug of commit b7848e9: batches come from a Python loop over the loader and one top-level jax.jit(train_step, static_argnums=(4, 5)) is reused every epoch)
# observed on jax 0.10.2 CPU: runs clean; every batch of the loader is used once per epoch and no compilation happens after the first epoch
# gap: other
# added: the imports of the stand-ins below; train_step/val_step are small stand-ins for src/pipeline/batch_steps.py; NumpyLoader is a stand-in for the repository's torch DataLoader subclass (torch is not installed); the module-level epoch loop is wrapped in run(); the commit's debugging lines config.update("jax_debug_nans", True) / config.update("jax_disable_jit", True), the image generation and plotting are left out
import jax
import jax.numpy as jnp
import numpy as np
import optax


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


def val_step(key, x, params_tup, fwd_fcn_tup, temp_schedule):
    """Stand-in for src.pipeline.batch_steps.val_step (renamed from validate in this commit)."""
    key, _ = jax.random.split(key)
    loss, grads = jax.value_and_grad(_loss)(params_tup, x, fwd_fcn_tup, temp_schedule)
    return key, loss, jnp.var(grads[0]) + jnp.var(grads[1])


jit_train_step = jax.jit(train_step, static_argnums=(4, 5))
jit_val_step = jax.jit(val_step, static_argnums=3)


def run(key, test_loader, val_loader, params_tup, opt_state_tup, optimiser_tup, fwd_fcn_tup, temp_schedule, num_epochs):
    history = []
    for epoch in range(num_epochs):

        epoch_loss = 0
        epoch_grad_var = 0

        for x, _ in test_loader: # tqdm.tqdm(test_loader):

            key, params_tup, opt_state_tup, batch_loss, batch_var = jit_train_step(
                key, x, params_tup, opt_state_tup, optimiser_tup, fwd_fcn_tup, temp_schedule
            )

            epoch_loss += batch_loss
            epoch_grad_var += batch_var

        val_loss = 0
        val_grad_var = 0

        for x, _ in val_loader:
            key, batch_loss, batch_var = jit_val_step(
                key, x, params_tup, fwd_fcn_tup, temp_schedule
            )

            val_loss += batch_loss
            val_grad_var += batch_var

        history.append({
            "Train Loss": epoch_loss / len(test_loader),
            "Val Loss": val_loss / len(val_loader),
            "Train Grad Var": epoch_grad_var / len(test_loader),
            "Val Grad Var": val_grad_var / len(val_loader),
        })
    return key, params_tup, opt_state_tup, history


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, dur, **kw: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None)

    rng = np.random.default_rng(0)
    test_loader = NumpyLoader(rng.normal(size=(32, 3)).astype(np.float32), batch_size=8, shuffle=True)
    val_loader = NumpyLoader(rng.normal(size=(16, 3)).astype(np.float32), batch_size=8, shuffle=False)
    fwd = lambda w, x: x @ w
    params_tup = (jnp.ones(3), jnp.ones(3))
    fwd_fcn_tup = (fwd, fwd)
    optimiser_tup = (optax.sgd(0.1), optax.sgd(0.1))
    opt_state_tup = tuple(o.init(p) for o, p in zip(optimiser_tup, params_tup))
    temp_schedule = jnp.linspace(0.0, 1.0, 5)

    key = jax.random.PRNGKey(0)
    key, params_tup, opt_state_tup, hist = run(key, test_loader, val_loader, params_tup, opt_state_tup,
                                               optimiser_tup, fwd_fcn_tup, temp_schedule, num_epochs=1)
    n_first = len(compiles)
    key, params_tup, opt_state_tup, hist = run(key, test_loader, val_loader, params_tup, opt_state_tup,
                                               optimiser_tup, fwd_fcn_tup, temp_schedule, num_epochs=3)
    # every batch is served each epoch (4 train + 2 val per epoch, 4 epochs in all)
    assert len(test_loader.served) == 4 * 4 and len(val_loader.served) == 2 * 4
    print("compiles: first epoch", n_first, "later epochs", len(compiles) - n_first)
    assert all(np.isfinite(float(h["Train Loss"])) for h in hist)
    print("OK")
