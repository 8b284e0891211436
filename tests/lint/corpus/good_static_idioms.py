import jax
import jax.numpy as jnp


@jax.jit
def combine(x, y, fn=None, key=None):
    if x.shape != y.shape:
        raise ValueError("shape mismatch")
    if x.dtype == jnp.bfloat16:
        x = x.astype(jnp.float32)
    if callable(fn):
        x = fn(x)
    if hasattr(y, "shape") and type(y) is not tuple:
        y = y + 0
    if key is None:
        key = jax.random.PRNGKey(0)
    stack = [x, y]
    total = jnp.zeros_like(x)
    while len(stack) > 0:
        total = total + stack.pop()
    return total + jax.random.normal(key, x.shape)


@jax.jit
def apply_params(params, x):
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        if i < len(params) - 1:
            x = jax.nn.relu(x)
    return x
