# source: https://github.com/VibhutiBansal-11/NILM_Uncertainty/blob/2de9f4110255f8a17e8df6bfac967dc234fd2056/utilities/fits.py
# observed on jax 0.10.2 CPU: the per-step key drawn from jax.random.split(rng, total_epochs) picks the minibatch (jax.random.choice) and is then passed unchanged as the dropout rng of the loss, so the dropout masks are drawn from the very key that chose the batch
# gap: flow-sensitive
# (the seq2point model is copied from models/seq2point.py at the same commit; the __main__ block, the small random data and the key-recording subclass are added)
# observed: line 71 the key that jax.random.choice just used to draw the minibatch indices is passed again as the dropout rng (recorded dropout keys equal jax.random.split(rng, total_epochs) element for element)
import jax
import jax.numpy as jnp
import optax
from functools import partial
import flax.linen as nn


class seq2point(nn.Module):
    @nn.compact
    def __call__(self, X, deterministic):
        X = nn.Conv(30, kernel_size=(10,))(X)
        X = nn.relu(X)
        X = nn.Conv(30, kernel_size=(8,))(X)
        X = nn.relu(X)
        X = nn.Conv(40, kernel_size=(6,))(X)
        X = nn.relu(X)
        X = nn.Conv(50, kernel_size=(5,))(X)
        X = nn.relu(X)
        X = nn.Dropout(rate=0.2, deterministic=deterministic)(X)
        X = nn.Conv(50, kernel_size=(5,))(X)
        X = nn.relu(X)
        X = nn.Dropout(rate=0.2, deterministic=deterministic)(X)
        X = X.reshape((X.shape[0], -1))
        X = nn.Dense(1024)(X)
        X = nn.relu(X)
        X = nn.Dropout(rate=0.2, deterministic=deterministic)(X)
        X = nn.Dense(1)(X)
        return X

    def loss_fn(self, params, X, y, deterministic, rng):
        yhat = self.apply(params, X, deterministic, rngs={"dropout":rng})
        loss = jnp.mean((y - yhat)**2)
        return loss


def fit(
    model,
    params,
    X,
    y,
    deterministic,
    batch_size=32,
    learning_rate=0.01,
    epochs=10,
    rng=jax.random.PRNGKey(0),
):
    opt = optax.adam(learning_rate=learning_rate)
    opt_state = opt.init(params)

    loss_fn = partial(model.loss_fn, deterministic=deterministic)
    loss_grad_fn = jax.value_and_grad(loss_fn)
    losses = []
    total_epochs = (len(X) // batch_size) * epochs

    carry = {}
    carry["params"] = params
    carry["state"] = opt_state

    @jax.jit
    def one_epoch(carry, rng):
        params = carry["params"]
        opt_state = carry["state"]
        idx = jax.random.choice(
            rng, jnp.arange(len(X)), shape=(batch_size,), replace=False
        )
        loss_val, grads = loss_grad_fn(params, X[idx], y[idx], rng=rng)  # expect: JIT502
        updates, opt_state = opt.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        carry["params"] = params
        carry["state"] = opt_state

        return carry, loss_val

    carry, losses = jax.lax.scan(one_epoch, carry, jax.random.split(rng, total_epochs))
    return carry["params"], losses


if __name__ == "__main__":
    import numpy as np

    recorded = []

    class RecordingSeq2point(seq2point):
        # harness only: records the dropout key that fit() hands to the loss
        def loss_fn(self, params, X, y, deterministic, rng):
            jax.debug.callback(lambda k: recorded.append(np.asarray(k)), jax.random.key_data(rng) if jnp.issubdtype(rng.dtype, jax.dtypes.prng_key) else rng)
            return super().loss_fn(params, X, y, deterministic, rng)

    N, W, bs = 32, 20, 8
    X = jax.random.normal(jax.random.PRNGKey(1), (N, W, 1))
    y = jax.random.normal(jax.random.PRNGKey(2), (N, 1))
    model = RecordingSeq2point()
    params = model.init(jax.random.PRNGKey(3), X[:2], True)
    rng = jax.random.PRNGKey(0)
    new_params, losses = fit(model, params, X, y, False, batch_size=bs, learning_rate=1e-3, epochs=1, rng=rng)
    jax.block_until_ready(losses)
    batch_keys = np.asarray(jax.random.split(rng, (N // bs) * 1))  # tolerate: JIT502
    assert len(recorded) == len(batch_keys), (len(recorded), len(batch_keys))
    same = all(np.array_equal(r, b) for r, b in zip(recorded, batch_keys))
    print("dropout key == batch-selection key at every step:", same)
    assert same
