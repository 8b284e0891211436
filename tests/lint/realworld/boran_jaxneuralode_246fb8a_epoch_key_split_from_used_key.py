# source: https://github.com/borangundogan/jax-neural-ode/blob/246fb8ab322cb0276c3ceea672a92db9ec190658/src/train.py
#   (with src/model.py and src/solver.py, same commit)
# observed on jax 0.10.2 CPU: silent. main splits `key` into key_split (the model's key) and
#   key_data (the train/validation split's key), then shuffles each epoch with
#   `key, key_epoch = jax.random.split(key)` on that same, already split `key`: the first
#   epoch's shuffle key is key_data itself, the key train_val_split permuted the data with,
#   and the next key is key_split, which init_model_params already split, so the second
#   epoch's shuffle key is the key the classifier weights were drawn from. With a typed key
#   under jax.debug_key_reuse(True) the first epoch raises KeyReuseError ("Previously-consumed
#   key passed to random_split") at that split. Also silent: evaluate runs outside jit once
#   per epoch, and each call builds a new step_fn for lax.scan, so the scan compiles again
#   every epoch (one backend compile per call after the first, counted by JAX's monitoring
#   events; label added in a later round, when a finding there was read and checked).
# gap: flow-sensitive
# added/changed: `import model` / `from model import ...` and `from solver import
#   integrate_ode` inlined (batch_integrate_ode and solver.py's own __main__ demo left out);
#   the __main__ block writes a small random stand-in for data/lorenz_dataset.npy (40 series
#   of 12 steps; the author's comes from src/lorenz.py) in a temporary directory, wraps
#   train_val_split, batch_iter and init_model_params to record the keys they get, runs main
#   there (its 50 epochs) and compares the keys, then counts evaluate's compiles. The
#   functions' docstrings are left out.
import time
from typing import Tuple, List, Dict, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax


# ---- src/solver.py
def rk4_step_general(f, state, t, dt, params):

    k1 = f(state, t, params)
    k2 = f(state + 0.5 * dt * k1, t + 0.5 * dt, params)
    k3 = f(state + 0.5 * dt * k2, t + 0.5 * dt, params)
    k4 = f(state + dt * k3, t + dt, params)

    return state + (dt / 6.0) * (k1 + 2*k2 + 2*k3 + k4)


def integrate_ode(f, y0, params, dt, steps):

    def step_fn(carry, t):
        state = carry
        new_state = rk4_step_general(f, state, t * dt, dt, params)
        return new_state, new_state

    # Efficient unrolled loop
    _, traj = jax.lax.scan(step_fn, y0, jnp.arange(steps))  # expect: JIT301

    return traj


# ---- src/model.py
# ---------- Basic MLP helpers ----------

def init_mlp_params(key, layer_sizes: List[int]) -> List[Dict[str, jnp.ndarray]]:
    params = []
    keys = jax.random.split(key, len(layer_sizes) - 1)

    for k, (n_in, n_out) in zip(keys, zip(layer_sizes[:-1], layer_sizes[1:])):
        # He initialization (scaled normal)
        W = jax.random.normal(k, (n_out, n_in)) * jnp.sqrt(2.0 / n_in)
        b = jnp.zeros((n_out,))
        params.append({"W": W, "b": b})

    return params


def mlp_apply(params: List[Dict[str, jnp.ndarray]], x: jnp.ndarray) -> jnp.ndarray:
    for i, layer in enumerate(params):
        W, b = layer["W"], layer["b"]
        x = W @ x + b
        if i < len(params) - 1:
            x = jnp.tanh(x)
    return x


# ---------- Model param ----------

class ModelParams(NamedTuple):
    dyn_params: List[Dict[str, jnp.ndarray]]  # Neural ODE for MLP
    clf_W: jnp.ndarray                        # classifier weight
    clf_b: jnp.ndarray                        # classifier bias


# ---------- Neural ODE dynamic ----------

def neural_ode_rhs(state: jnp.ndarray, t: float, dyn_params) -> jnp.ndarray:
    return mlp_apply(dyn_params, state)


def neural_ode_trajectory(
    params: ModelParams,
    z0: jnp.ndarray,
    dt: float,
    steps: int,
) -> jnp.ndarray:
    traj = integrate_ode(neural_ode_rhs, z0, params.dyn_params, dt, steps)
    return traj


def apply_model(
    params: ModelParams,
    z0: jnp.ndarray,
    dt: float,
    steps: int,
) -> (jnp.ndarray, jnp.ndarray):
    traj = neural_ode_trajectory(params, z0, dt, steps)
    z_T = traj[-1]  # final state

    logits = params.clf_W @ z_T + params.clf_b
    return traj, logits


# ---------- Param init func ----------

def init_model_params(
    key,
    state_dim: int = 3,
    hidden_dims=(32, 32),
    num_classes: int = 2,
) -> ModelParams:
    key_dyn, key_clf = jax.random.split(key, 2)

    layer_sizes = [state_dim, *hidden_dims, state_dim]
    dyn_params = init_mlp_params(key_dyn, layer_sizes)

    # Classifier: from final state (state_dim) -> num_classes
    clf_W = jax.random.normal(key_clf, (num_classes, state_dim)) * jnp.sqrt(
        2.0 / state_dim
    )
    clf_b = jnp.zeros((num_classes,))

    return ModelParams(dyn_params=dyn_params, clf_W=clf_W, clf_b=clf_b)


# ---- src/train.py
# ----------------- Dataset helpers -----------------
def load_lorenz_dataset(path: str = "data/lorenz_dataset.npy") -> Tuple[jnp.ndarray, jnp.ndarray]:
    data = np.load(path, allow_pickle=True).item()
    X_np, y_np = data["X"], data["y"]  # X: (N, T, 3), y: (N,)
    X = jnp.array(X_np, dtype=jnp.float32)
    y = jnp.array(y_np, dtype=jnp.int32)
    return X, y


def train_val_split(
    X: jnp.ndarray,
    y: jnp.ndarray,
    val_frac: float = 0.2,
    key: jax.Array = jax.random.PRNGKey(0),
) -> Tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    N = X.shape[0]
    idx = jax.random.permutation(key, N)
    split = int(N * (1.0 - val_frac))
    train_idx = idx[:split]
    val_idx = idx[split:]
    X_train, y_train = X[train_idx], y[train_idx]
    X_val, y_val = X[val_idx], y[val_idx]
    return X_train, y_train, X_val, y_val


def batch_iter(
    X: jnp.ndarray,
    y: jnp.ndarray,
    batch_size: int,
    key: jax.Array,
):
    N = X.shape[0]
    idx = jax.random.permutation(key, N)

    for start in range(0, N, batch_size):
        end = start + batch_size
        batch_idx = idx[start:end]
        yield X[batch_idx], y[batch_idx]


# ----------------- Loss & metrics -----------------
def forward_batch(
    params: ModelParams,
    X_batch: jnp.ndarray,
    dt: float,
    steps: int,
):
    z0_batch = X_batch[:, 0, :]  # (B, 3)

    # vmap over batch dimension
    traj_batch, logits_batch = jax.vmap(
        lambda z0: apply_model(params, z0, dt, steps)
    )(z0_batch)

    return traj_batch, logits_batch


def loss_fn(
    params: ModelParams,
    X_batch: jnp.ndarray,
    y_batch: jnp.ndarray,
    dt: float,
    steps: int,
    traj_weight: float = 0.1,
):
    traj_pred, logits = forward_batch(params, X_batch, dt, steps)

    # Classification loss
    ce_loss = optax.softmax_cross_entropy_with_integer_labels(
        logits, y_batch
    ).mean()

    # Trajectory reconstruction loss (compare to ground-truth Lorenz traj)
    traj_true = X_batch  # (B, T, 3)
    traj_mse = jnp.mean((traj_pred - traj_true) ** 2)

    # total_loss = ce_loss + traj_weight * traj_mse
    total_loss = ce_loss
    
    # Accuracy for logging
    preds = jnp.argmax(logits, axis=-1)
    acc = jnp.mean(preds == y_batch)

    metrics = {
        "loss": total_loss,
        "ce_loss": ce_loss,
        "traj_mse": traj_mse,
        "acc": acc,
    }
    return total_loss, metrics


# ----------------- Training step (JIT) -----------------
def make_train_step(optimizer, dt: float, steps: int, traj_weight: float = 0.1):

    def _train_step(params: ModelParams, opt_state, X_batch, y_batch):
        (loss_value, metrics), grads = jax.value_and_grad(
            lambda p, xb, yb: loss_fn(p, xb, yb, dt, steps, traj_weight),
            has_aux=True,
        )(params, X_batch, y_batch)

        updates, opt_state = optimizer.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)

        return params, opt_state, metrics

    return jax.jit(_train_step)


# ----------------- Evaluation (no grad) -----------------
def evaluate(
    params: ModelParams,
    X: jnp.ndarray,
    y: jnp.ndarray,
    dt: float,
    steps: int,
    batch_size: int = 32,
):
    N = X.shape[0]
    num_batches = max(1, N // batch_size)

    def _eval_batch(Xb, yb):
        _, logits = forward_batch(params, Xb, dt, steps)
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, yb).mean()
        preds = jnp.argmax(logits, axis=-1)
        acc = jnp.mean(preds == yb)
        return ce, acc

    ce_sum = 0.0
    acc_sum = 0.0

    for i in range(0, N, batch_size):
        Xb = X[i : i + batch_size]
        yb = y[i : i + batch_size]
        ce, acc = _eval_batch(Xb, yb)
        ce_sum += float(ce) * Xb.shape[0]
        acc_sum += float(acc) * Xb.shape[0]

    return ce_sum / N, acc_sum / N


# ----------------- Main training loop -----------------
def main():
    # Hyperparameters
    batch_size = 32
    num_epochs = 50
    lr = 1e-3
    traj_weight = 0.1

    # Load dataset
    X, y = load_lorenz_dataset("data/lorenz_dataset.npy")
    steps = X.shape[1]       # T = 1000
    dt = 0.01                # same as we used in data generation

    key = jax.random.PRNGKey(0)
    key_split, key_data = jax.random.split(key)

    X_train, y_train, X_val, y_val = train_val_split(X, y, val_frac=0.2, key=key_data)

    # Initialize model
    key_model = key_split
    params = init_model_params(
        key_model,
        state_dim=3,
        hidden_dims=(64, 64),
        num_classes=2,
    )

    # Optimizer
    optimizer = optax.adam(lr)
    opt_state = optimizer.init(params)

    train_step = make_train_step(optimizer, dt, steps, traj_weight=traj_weight)

    print("Start training...")
    print(f"Train size: {X_train.shape[0]}, Val size: {X_val.shape[0]}")
    start_time = time.time()

    for epoch in range(1, num_epochs + 1):
        # Shuffle per epoch
        key, key_epoch = jax.random.split(key)  # expect: JIT502
        epoch_metrics = {"loss": 0.0, "ce_loss": 0.0, "traj_mse": 0.0, "acc": 0.0}
        count = 0

        for X_batch, y_batch in batch_iter(X_train, y_train, batch_size, key_epoch):
            params, opt_state, metrics = train_step(params, opt_state, X_batch, y_batch)

            bs = X_batch.shape[0]
            for k in epoch_metrics:
                epoch_metrics[k] += float(metrics[k]) * bs
            count += bs

        # Normalize epoch metrics
        for k in epoch_metrics:
            epoch_metrics[k] /= count

        # Validation
        val_ce, val_acc = evaluate(params, X_val, y_val, dt, steps, batch_size=32)

        elapsed = time.time() - start_time
        print(
            f"[Epoch {epoch:03d}] "
            f"loss={epoch_metrics['loss']:.4f} | "
            f"ce={epoch_metrics['ce_loss']:.4f} | "
            f"traj_mse={epoch_metrics['traj_mse']:.4f} | "
            f"acc={epoch_metrics['acc']:.4f} | "
            f"val_ce={val_ce:.4f} | val_acc={val_acc:.4f} | "
            f"time={elapsed:.1f}s"
        )

    print("Training finished.")


if __name__ == "__main__":
    import os
    import tempfile

    keys = {}
    original_split, original_iter, original_init = train_val_split, batch_iter, init_model_params

    def train_val_split(X, y, val_frac=0.2, key=jax.random.PRNGKey(0)):
        keys["train_val_split"] = key
        return original_split(X, y, val_frac=val_frac, key=key)

    def batch_iter(X, y, batch_size, key):
        keys.setdefault("epochs", []).append(key)
        return original_iter(X, y, batch_size, key)

    def init_model_params(key, **kwargs):
        keys["model"] = key
        return original_init(key, **kwargs)

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "data"))
        np.save(
            os.path.join(tmp, "data", "lorenz_dataset.npy"),
            {"X": rng.normal(size=(40, 12, 3)).astype("f4"), "y": rng.integers(0, 2, 40)},
            allow_pickle=True,
        )
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            main()
        finally:
            os.chdir(cwd)

    key_clf = jax.random.split(keys["model"], 2)[1]
    # observed: line 320 hands the first epoch the key that split train from validation, and
    #   the second epoch the key init_model_params drew the classifier weights from
    assert len(keys["epochs"]) == 50
    assert bool(jnp.all(keys["epochs"][0] == keys["train_val_split"]))
    assert bool(jnp.all(keys["epochs"][1] == key_clf))

    # observed: line 50 compiles its scan again on every call of evaluate (once per epoch):
    #   outside jit, integrate_ode hands lax.scan a new step_fn each call, and JAX caches
    #   the compiled scan by that function object
    from jax._src import monitoring

    compiles = []
    monitoring.register_event_duration_secs_listener(
        lambda event, *a, **k: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    params = original_init(jax.random.PRNGKey(0))
    X_val, y_val = jnp.ones((8, 12, 3)), jnp.zeros((8,), jnp.int32)
    evaluate(params, X_val, y_val, 0.01, 12, batch_size=8)
    before = len(compiles)
    evaluate(params, X_val, y_val, 0.01, 12, batch_size=8)
    assert len(compiles) - before == 1, len(compiles) - before
