# source: https://github.com/anulum/scpn-fusion-core/blob/61de1261d40ea4e1404595b1b8297ff0cbd892eb/src/scpn_fusion/core/fno_jax_training.py
# observed on jax 0.10.2 CPU: train_fno_jax draws the synthetic turbulence fields X and then
#   the target's noise from the same key (`random.normal(key, ...)` twice), so the "noise" of
#   sample i is not independent: it is exactly X's i-th value in flattened order (the first
#   sample's field), and it hands that consumed key on to init_fno_params, which splits it
#   for the FNO weights; init_fno_params draws fc1 from k4 and then splits k4 for fc2. JAX's
#   key-reuse checker (typed keys) rejects all three: the second normal at line 132, the
#   split inside init_fno_params (line 43) when line 134 passes the used key, and the split
#   of k4 at line 53. The jitted FNO layer and update step themselves train fine. Run
#   whole under the checker, the first reuse is named in the __main__ block's recording
#   wrapper (line 166), which forwards line 132's draw.
# gap: other
# added: the hyperparameters are made small for a CPU check (MODES 16 -> 4, WIDTH 64 -> 8,
#   EPOCHS 100 -> 2, n_samples 1000 -> 32, grid_size 64 -> 16; each line otherwise as
#   written); the original __main__ block (train_fno_jax()) is replaced by one that runs it in a
#   temporary folder (it saves to weights/), records the normal draws to compare them, and
#   runs the key-reuse checker on typed keys. Nothing else is changed.
# ─────────────────────────────────────────────────────────────────────
# SCPN Fusion Core — JAX Fourier Neural Operator (FNO) Training
# © 1998–2026 Miroslav Šotek. All rights reserved.
# ─────────────────────────────────────────────────────────────────────
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap, value_and_grad, random
import numpy as np
from pathlib import Path
import time
import logging

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger(__name__)

# ── FNO Hyperparameters ──────────────────────────────────────────────
MODES = 4
WIDTH = 8
LEARNING_RATE = 1e-3
BATCH_SIZE = 16
EPOCHS = 2

# ── Model Definition ─────────────────────────────────────────────────

def init_fno_params(key, modes, width):
    k1, k2, k3, k4 = random.split(key, 4)  # tolerate: JIT502

    # Simple 2-layer FNO
    params = {
        "w1_real": random.normal(k1, (width, width, modes, modes)) * 0.02,
        "w1_imag": random.normal(k2, (width, width, modes, modes)) * 0.02,
        "b1": jnp.zeros(width),
        "linear1": random.normal(k3, (width, width)) * 0.02,

        "fc1": random.normal(k4, (width, 128)) * 0.02,
        "fc2": random.normal(random.split(k4)[0], (128, 1)) * 0.02,  # expect: JIT502
    }
    return params

@jit
def fno_layer(x, w_real, w_imag, linear, b):
    # x: (grid, grid, width)
    # 1. Fourier Transform
    x_ft = jnp.fft.rfft2(x, axes=(0, 1))

    # 2. Spectral Convolution
    # x_ft shape: (grid, grid//2 + 1, width)
    # weights shape: (width, width, modes, modes)

    # We want out_ft[width_out, i, j] = sum_width_in x_ft[width_in, i, j] * w[width_out, width_in, i, j]
    # For simplicity, we use einsum for the spectral multiplication
    # We only take the top modes
    modes = w_real.shape[2]

    # Extract modes from x_ft
    # rfft2 result is (N, N//2 + 1, C)
    x_ft_low = x_ft[:modes, :modes, :]

    # weights shape: (width_out, width_in, modes, modes)
    # x_ft_low shape: (modes, modes, width_in)
    # Target shape: (modes, modes, width_out)
    # Logic: for each (m1, m2), we do Matrix-Vector multiply (W_out, W_in) @ (W_in)
    weights = w_real + 1j * w_imag

    # Correct einsum for (O, I, M1, M2) x (M1, M2, I) -> (M1, M2, O)
    out_ft_low = jnp.einsum("oimj,mji->mjo", weights, x_ft_low)
    # Pad back to full Fourier size

    out_ft = jnp.zeros_like(x_ft)
    out_ft = out_ft.at[:modes, :modes, :].set(out_ft_low)

    # 3. Inverse Fourier
    x_out = jnp.fft.irfft2(out_ft, axes=(0, 1), s=x.shape[:2])

    # 4. Spatial linear (channel mixing)
    return jax.nn.gelu(jnp.dot(x, linear) + b + x_out)
def model_forward(params, x):
    # x: (grid, grid, 1) -> input turbulence field
    # Project to width
    x = jnp.repeat(x, WIDTH, axis=-1)

    # FNO Layer 1
    x = fno_layer(x, params["w1_real"], params["w1_imag"], params["linear1"], params["b1"])

    # Global average pooling for turbulence intensity prediction
    z = jnp.mean(x, axis=(0, 1))

    # MLP head
    z = jax.nn.relu(jnp.dot(z, params["fc1"]))
    z = jnp.dot(z, params["fc2"])
    return z[0]

# ── Training Loop ────────────────────────────────────────────────────

def mse_loss(params, x_batch, y_batch):
    preds = vmap(lambda x: model_forward(params, x))(x_batch)
    return jnp.mean((preds - y_batch)**2)

@jit
def update_step(params, opt_state, x_batch, y_batch, lr):
    loss, grads = value_and_grad(mse_loss)(params, x_batch, y_batch)
    # Simple SGD-like update for brevity
    new_params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return new_params, loss

def train_fno_jax():
    logger.info("Generating synthetic turbulence dataset (JAX)...")
    key = random.PRNGKey(42)

    # Generate 1000 samples (vs 60 in NumPy version)
    n_samples = 32
    grid_size = 16
    X = random.normal(key, (n_samples, grid_size, grid_size, 1))
    # Synthetic target: turbulence intensity correlated with spatial variance
    Y = jnp.std(X, axis=(1, 2, 3)) * 5.0 + random.normal(key, (n_samples,)) * 0.1  # expect: JIT502

    params = init_fno_params(key, MODES, WIDTH)  # expect: JIT502

    logger.info("Starting training loop...")
    for epoch in range(EPOCHS):
        t0 = time.perf_counter()

        # Mini-batching
        idx = np.random.permutation(n_samples)
        epoch_loss = 0
        for i in range(0, n_samples, BATCH_SIZE):
            batch_idx = idx[i:i+BATCH_SIZE]
            params, loss = update_step(params, None, X[batch_idx], Y[batch_idx], LEARNING_RATE)
            epoch_loss += loss

        if epoch % 10 == 0:
            dt = time.perf_counter() - t0
            logger.info(f"Epoch {epoch}: Loss={epoch_loss/n_samples:.6f} ({dt:.2f}s)")

    logger.info("Training complete. Saving JAX-FNO weights...")
    np.savez("weights/fno_turbulence_jax.npz", **params)

if __name__ == "__main__":
    import os
    import tempfile
    import traceback

    os.chdir(tempfile.mkdtemp())
    os.mkdir("weights")
    draws = []
    _normal = random.normal

    def normal(key, shape=(), *args, **kwargs):
        out = _normal(key, shape, *args, **kwargs)  # tolerate: JIT502
        draws.append((tuple(shape), out))
        return out

    random.normal = normal
    train_fno_jax()
    random.normal = _normal

    X = next(out for shape, out in draws if shape == (32, 16, 16, 1))
    noise = next(out for shape, out in draws if shape == (32,))
    # observed: line 132 draws the target noise from the key X was drawn from: the noise is X's
    #   first 32 values (the first field's top rows), not independent of the inputs
    assert bool(jnp.array_equal(noise, X.ravel()[:32]))

    def reuse_line(fn):
        try:
            fn()
        except jax.errors.KeyReuseError as err:
            frames = [fr for fr in traceback.extract_tb(err.__traceback__) if fr.filename == __file__]
            return frames[-1].lineno
        return None

    jax.config.update("jax_debug_key_reuse", True)

    def data_then_params():
        key = random.key(42)
        X = random.normal(key, (4, 16, 16, 1))
        return init_fno_params(key, MODES, WIDTH)  # tolerate: JIT502

    # observed: line 134 passes init_fno_params the key the data were drawn from: the checker
    #   rejects its split at line 43
    assert reuse_line(data_then_params) == 43
    # observed: line 53 splits k4 after fc1 was drawn from it: the checker rejects it
    assert reuse_line(lambda: init_fno_params(random.key(7), MODES, WIDTH)) == 53
