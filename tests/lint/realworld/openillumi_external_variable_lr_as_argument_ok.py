# source: https://openillumi.com/en/en-jax-jit-external-variable-implicit-argument-jaxpr
#   (a Stack Overflow question retold: "Case 2: Explicitly passing as an argument", the
#   form the article recommends)
# observed on jax 0.10.2 CPU: runs clean; extra_lr is a traced argument, so the second call
#   scales the updates by 0.01 and reuses the compiled step (one trace for both values).
#   The question elides the body of step ("# ..."); the stand-in is the step of the Optax
#   documentation's training loop the question refers to (value_and_grad of a loss,
#   optimizer.update, apply_updates), with params one array so that the question's
#   `updates *= extra_lr` applies, and a least-squares loss, data and optimizer as added
#   inputs. Added: the imports and the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
import optax

optimizer = optax.adam(learning_rate=1e-2)


def loss(params, batch, labels):
    return jnp.mean((batch @ params - labels) ** 2)


params = jnp.ones((3,))
opt_state = optimizer.init(params)
batch = jnp.arange(12.0).reshape(4, 3)
labels = jnp.array([1.0, 2.0, 3.0, 4.0])

extra_learning_rate = 0.1
@jax.jit
def step(params, opt_state, batch, labels, extra_lr):
    loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    updates *= extra_lr # Using the argument
    params = optax.apply_updates(params, updates)
    return params, opt_state, loss_value

# Inside the loop
extra_learning_rate = 0.1
params1, opt_state1, _ = step(params, opt_state, batch, labels, extra_learning_rate)
extra_learning_rate = 0.01
params2, opt_state2, _ = step(params1, opt_state1, batch, labels, extra_learning_rate)

if __name__ == "__main__":
    def step_eager(params, opt_state, batch, labels, extra_lr):
        loss_value, grads = jax.value_and_grad(loss)(params, batch, labels)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        updates *= extra_lr
        return optax.apply_updates(params, updates), opt_state, loss_value

    expected, _, _ = step_eager(params1, opt_state1, batch, labels, 0.01)
    assert jnp.allclose(params2, expected)
    assert step._cache_size() == 1
