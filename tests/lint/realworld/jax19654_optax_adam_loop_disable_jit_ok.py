# source: https://github.com/jax-ml/jax/issues/19654
# observed on jax 0.10.2 CPU: runs clean: with jax_disable_jit set, the loop of grad and
#   optax adam updates runs eagerly and x moves towards 0 (the report was about the
#   compilations logged by library functions under JAX_LOG_COMPILES, not a wrong result).
# gap: exemption-vs-JAX
import jax
jax.config.update('jax_disable_jit', True)
import jax.numpy as jnp
import optax

x = jnp.ones(3)

def loss(x_):
    return jnp.sum(x_**2)

optimizer = optax.adam(1e-2)
opt_state = optimizer.init(x)
loss_vg = jax.grad(loss)
iterations = 500
for i in range(5):
    print('======', i, '======')
    grads = loss_vg(x)
    updates, opt_state = optimizer.update(grads, opt_state)
    x = optax.apply_updates(x, updates)
