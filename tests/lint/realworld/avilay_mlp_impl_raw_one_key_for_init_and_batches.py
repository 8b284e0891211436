# source: https://github.com/avilay/learn-ai-act-1/blob/0cc7bc7c0794b0328002af4607388358c1518992/learn-jax/myimpls/mlp_impl_raw.ipynb
#   (a learner's from-scratch JAX MLP classifier: the init function, the jitted update
#   step, and the training loop; the notebook prints "Accuracy: 0.20000" three times)
# observed on jax 0.10.2 CPU: every draw uses the one global `key`. The first batch X takes
#   the key; its labels y, all four parameter arrays and every "new" batch in the training
#   loop draw from it again: b1 and b2 are X's first uniforms rescaled, y is 1 exactly
#   where X's first five uniforms are below 0.3, w2 is W1's first row of truncated normals
#   rescaled, and each epoch trains on the same X and y as the one before (the accuracy
#   printed is the same every epoch: 0.20000 in the notebook, 0.00000 here).
#   Left out: the notebook's exploration cells (jnp.concatenate, jnp.where and jnp.mean on
#   small arrays, a first predict). Added: the __main__ block.
# gap: other
import jax
import numpy as np
import jax.numpy as jnp
from jax import random, jit, lax, vmap, pmap, grad, value_and_grad

rng = np.random.default_rng()
key = jax.random.PRNGKey(0)

n_features = 7
batch_size = 5
learing_rate = 0.01
n_epochs = 3

def init_classifier_mlp(n_features, hidden_layer):
    weights_init = jax.nn.initializers.glorot_normal()
    
    W1 = weights_init(key, (hidden_layer, n_features))  # expect: JIT502
    var = jnp.sqrt(n_features)
    b1 = jax.random.uniform(key, (hidden_layer,), minval=-var, maxval=var)  # expect: JIT502

    w2 = weights_init(key, (1, hidden_layer)).squeeze()  # expect: JIT502
    var = jnp.sqrt(hidden_layer)
    b2 = jax.random.uniform(key, minval=-var, maxval=var)  # expect: JIT502

    return W1, b1, w2, b2

def predict(W1, b1, w2, b2, x):
    z1 = jax.nn.relu(W1 @ x + b1)
    p = jax.nn.sigmoid(w2 @ z1 + b2)
    return p
predict = vmap(predict, in_axes=(None, None, None, None, 0))

def loss(W1, b1, w2, b2, X, y):
    p = predict(W1, b1, w2, b2, X)
    return -jnp.mean(y * jnp.log(p) + (1-y) * jnp.log(1 - p))

@jit
def update(W1, b1, w2, b2, X, y):
    dW1, db1, dw2, db2 = grad(loss, argnums=(0, 1, 2, 3))(W1, b1, w2, b2, X, y)
    return W1 - learing_rate * dW1, b1 - learing_rate * db1, w2 - learing_rate * dw2, b2 - learing_rate * db2

def accuracy(W1, b1, w2, b2, cutoff, X, y):
    p = predict(W1, b1, w2, b2, X)
    y_hat = jnp.where(p > cutoff, 1., 0.)
    return jnp.mean(y_hat == y)

X = jax.random.uniform(key, shape=(batch_size, n_features))
y = jax.random.choice(key, a=jnp.array([0, 1]), shape=(batch_size,), p=jnp.array([0.7, 0.3]))  # expect: JIT502
print(X.shape,  y.shape)

W1, b1, w2, b2 = init_classifier_mlp(n_features, 8)
print(W1.shape, b1.shape)
print(w2.shape, b2.shape)

W1, b1, w2, b2 = init_classifier_mlp(n_features, 8)
X_all = None
y_all = None
for _ in range(n_epochs):
    X = jax.random.uniform(key, shape=(batch_size, n_features))  # expect: JIT502
    y = jax.random.choice(key, a=jnp.array([0, 1]), shape=(batch_size,), p=jnp.array([0.7, 0.3]))  # expect: JIT502
    W1, b1, w2, b2 = update(W1, b1, w2, b2, X, y)
    
    if X_all is None:
        X_all = X
        y_all = y
    else:
        X_all = jnp.concatenate((X_all, X), axis=0)
        y_all = jnp.concatenate((y_all, y))
    acc = accuracy(W1, b1, w2, b2, 0.5, X_all, y_all)
    print(f"Accuracy: {acc:.5f}")


if __name__ == "__main__":
    first_X, first_y = X_all[:batch_size], y_all[:batch_size]
    u = first_X.ravel()
    W1_0, b1_0, w2_0, b2_0 = init_classifier_mlp(n_features, 8)
    # observed: line 60 draws y from X's key: y is 1 exactly where X's first uniforms are below 0.3
    assert (first_y == (u[:batch_size] < 0.3)).all(), (first_y, u[:batch_size])
    # observed: line 31 draws b1 from X's key: b1 is X's first eight uniforms rescaled
    var = jnp.sqrt(n_features)
    assert jnp.allclose(b1_0, -var + 2 * var * u[:8], atol=1e-5)
    # observed: line 35 draws b2 from X's key as well: b2 is X's first uniform rescaled
    var = jnp.sqrt(8)
    assert jnp.allclose(b2_0, -var + 2 * var * u[0], atol=1e-5)
    # observed: line 33 draws w2 from W1's stream: w2 is W1's first row, rescaled by the
    # glorot standard deviations
    std1 = jnp.sqrt(2.0 / (7 + 8))
    std2 = jnp.sqrt(2.0 / (8 + 1))
    assert jnp.allclose(w2_0 / std2, W1_0.ravel()[:8] / std1, atol=1e-5)
    # observed: line 29 draws W1's truncated normals from X's uniforms
    lo, hi = jax.scipy.stats.norm.cdf(-2.0), jax.scipy.stats.norm.cdf(2.0)
    unif = lo + (hi - lo) * u[:8]
    expected = jax.scipy.special.ndtri(unif) / 0.87962566103423978
    assert jnp.allclose(W1_0.ravel()[:8] / std1, expected, atol=1e-3), (W1_0.ravel()[:8] / std1, expected)
    # observed: line 71 and line 72 give every epoch the same batch: X_all and y_all hold
    # three copies of one batch
    for i in range(1, n_epochs):
        assert (X_all[i * batch_size:(i + 1) * batch_size] == first_X).all()
        assert (y_all[i * batch_size:(i + 1) * batch_size] == first_y).all()
