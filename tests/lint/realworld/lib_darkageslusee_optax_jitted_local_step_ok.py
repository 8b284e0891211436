# source: https://github.com/rugvedpund/darkages-lusee/blob/920cfc0e28deaf5f25df51aaa024eed4e3c05b01/scripts/01_testjaxvspcaloss.py
#   (a radio-cosmology research script: make_w, make_random_weights, optimize and lossfn as
#   written there; the imports are the ones its `from dalusee.imports import *` brings in,
#   jax_enable_x64 included)
# observed on jax 0.10.2 CPU: runs clean. `optimize` jits a local `_step` that closes over
#   the loss, the optimizer and the data, and the driver loop stores each step's values in
#   NumPy arrays (item assignment on np.zeros, not on JAX arrays); the key is made from an
#   explicit seed each time, on purpose. Added: the toy `deltafg`/`signal` data of the
#   __main__ block (the script builds them with xarray from a simulation) and a smaller
#   niter.
# gap: exemption-vs-JAX
import numpy as np
import jax
import optax
import jax.numpy as jnp
from tqdm import tqdm

jax.config.update("jax_enable_x64", True)


def make_random_weights(motherseed: int = 42):
    rng = np.random.RandomState(motherseed)
    seed1, seed2 = rng.randint(0, 1000, 2)
    wda = make_w(seed1)
    wcmb = make_w(seed2)
    return wda, wcmb


def make_w(seed: int = 42, mask=jnp.arange(50) >= 12):
    key = jax.random.PRNGKey(seed)
    w = jax.random.uniform(key, shape=(50)) - 0.5
    w = w / jnp.linalg.norm(w)
    wsigns = jnp.sign(w)
    w = w / wsigns[-1]  # enforce positive sign for first element
    w = jnp.where(mask, w, 0)  # replace mask=False with 0
    return w


def optimize(loss, wtensor, deltafg, signal, niter):
    learning_rate = 0.01
    optimizer = optax.chain(
        optax.clip_by_global_norm(1.0),
        optax.adam(
            optax.exponential_decay(
                init_value=learning_rate,
                transition_steps=niter / 1,
                decay_rate=0.99,
            )
        ),
    )
    opt_state = optimizer.init(wtensor)

    @jax.jit
    def _step(w, _opt_state):
        loss_value, grads = jax.value_and_grad(loss)(w, deltafg, signal)
        updates, _opt_state = optimizer.update(grads, _opt_state)
        w = optax.apply_updates(w, updates)
        return w, _opt_state, loss_value

    iterations = np.zeros((niter))
    loss_vals = np.zeros((niter))
    wnorms = np.zeros((niter))
    witers = np.zeros((niter, 50))

    for i in tqdm(range(niter), leave=False, desc="Optimizer"):
        witers[i] = wtensor
        wnorms[i] = jnp.linalg.norm(wtensor)
        wtensor, opt_state, loss_value = _step(wtensor, opt_state)
        iterations[i], loss_vals[i] = i, loss_value
    woptim = wtensor
    return woptim, iterations, loss_vals, wnorms, witers


def lossfn(w, deltafg, signal):
    wnorm = jnp.linalg.norm(w)  # frobenius norm sqrt(sum(w**2))
    w = w / wnorm
    deltafg_tilde = jnp.einsum("f,tf->t", w, deltafg)
    signal_tilde = jnp.einsum("f,tf->t", w, signal)
    signal_tilde = signal_tilde.mean()
    return (jnp.var(deltafg_tilde) / signal_tilde**2) + (wnorm**2 - 1) ** 2


if __name__ == "__main__":
    rng = np.random.RandomState(0)
    jdelta = jnp.asarray(rng.normal(size=(24, 50)))
    jda = jnp.asarray(1.0 + 0.1 * rng.normal(size=(24, 50)))
    jcmb = jnp.asarray(2.0 + 0.1 * rng.normal(size=(24, 50)))
    niter = 200
    wda, wcmb = make_random_weights(0)
    assert float(jnp.abs(wda[:12]).sum()) == 0.0
    woptim_da, iter_da, loss_vals_da, wnorms_da, witers_da = optimize(
        lossfn, wda, jdelta, jda, niter
    )
    woptim_cmb, iter_cmb, loss_vals_cmb, wnorms_cmb, witers_cmb = optimize(
        lossfn, wcmb, jdelta, jcmb, niter
    )
    assert np.allclose(iter_da, iter_cmb)
    assert np.all(np.isfinite(loss_vals_da)) and np.all(np.isfinite(loss_vals_cmb))
    assert loss_vals_da[-1] < loss_vals_da[0]
    assert np.allclose(witers_da[0], np.asarray(wda))
