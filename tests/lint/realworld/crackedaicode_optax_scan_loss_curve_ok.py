# source: https://crackedaicode.com/problems/optax-multi-step-loss-curve
#   ("The recipe" of the page, as posted, as the body of the function the problem asks for)
# observed on jax 0.10.2 CPU: runs clean under jax.jit: the optimizer state travels in the
#   scan carry (the page's pitfall: closing over it would freeze it), the per-step loss is
#   taken before the update, and optax.sgd accepts the traced learning rate. The jitted
#   losses equal the eager ones. Added: the imports, the `def` line with the
#   problem's inputs (w0, x_batches, y_batches, lr), and the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax import lax
import optax


def loss_curve(w0, x_batches, y_batches, lr):
    optimizer = optax.sgd(lr)
    opt_state = optimizer.init(w0)

    def loss_fn(w, x, y):
        return jnp.sum((w * x - y) ** 2)
    grad_fn = jax.grad(loss_fn, argnums=0)

    def step(carry, batch):
        w, opt_state = carry
        x, y = batch
        l = loss_fn(w, x, y)           # pre-update loss
        g = grad_fn(w, x, y)
        updates, opt_state = optimizer.update(g, opt_state, w)
        new_w = optax.apply_updates(w, updates)
        return (new_w, opt_state), l   # new carry, stacked output

    (_, _), losses = lax.scan(step, (w0, opt_state), (x_batches, y_batches))
    return losses


if __name__ == "__main__":
    x_batches = jnp.arange(1.0, 9.0).reshape(4, 2)
    y_batches = 3.0 * x_batches
    jitted = jax.jit(loss_curve)(jnp.float32(0.0), x_batches, y_batches, 0.005)
    eager = loss_curve(jnp.float32(0.0), x_batches, y_batches, 0.005)
    assert jitted.shape == (4,)
    assert jnp.allclose(jitted, eager)
    assert not jnp.allclose(jitted[1:], jitted[0])  # w moves between steps
