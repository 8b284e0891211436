# source: https://github.com/Ganesh172919/fluffy-waffle/blob/1d3bbc4731e22854ad82de941389cbe0b59d2e7e/jax-learning/optimizers.py
#   (a JAX learning course's script: hand-written SGD and Adam on a linear regression)
# observed on jax 0.10.2 CPU: the observation noise is drawn from `key`, the key the
#   inputs x were drawn from: normal(key, (100,)) is the first 100 numbers of
#   normal(key, (100, 5)), so the "noise" equals x[:20].ravel(), values of the inputs
#   themselves, not independent noise. `jax.tree_map` (removed) is spelled `jax.tree.map`.
#   Added: the __main__ block.
# gap: other
import jax
import jax.numpy as jnp

def sgd_update(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)

def adam_init(params):
    m = jax.tree.map(jnp.zeros_like, params)
    v = jax.tree.map(jnp.zeros_like, params)
    return m, v, 0

def adam_update(params, grads, state, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-8):
    m, v, t = state
    t = t + 1
    m = jax.tree.map(lambda mi, gi: beta1 * mi + (1 - beta1) * gi, m, grads)
    v = jax.tree.map(lambda vi, gi: beta2 * vi + (1 - beta2) * gi ** 2, v, grads)
    m_hat = jax.tree.map(lambda mi: mi / (1 - beta1 ** t), m)
    v_hat = jax.tree.map(lambda vi: vi / (1 - beta2 ** t), v)
    params = jax.tree.map(lambda p, mh, vh: p - lr * mh / (jnp.sqrt(vh) + eps), params, m_hat, v_hat)
    return params, (m, v, t)

def loss(w, x, y):
    pred = x @ w
    return jnp.mean((pred - y) ** 2)

key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (100, 5))
w_true = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0])
y = x @ w_true + 0.1 * jax.random.normal(key, (100,))  # expect: JIT502

w = jnp.zeros(5)
state = adam_init(w)
grad_fn = jax.grad(loss)

for i in range(200):
    g = grad_fn(w, x, y)
    w, state = adam_update(w, g, state, lr=0.01)

print(w)
print(loss(w, x, y))


if __name__ == "__main__":
    # observed: line 37 draws the noise from the key of x: it repeats x's values
    noise = (y - x @ w_true) / 0.1
    assert jnp.allclose(noise, x[:20].ravel(), atol=1e-4)
