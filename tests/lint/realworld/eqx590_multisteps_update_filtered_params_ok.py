# source: https://github.com/patrick-kidger/equinox/issues/590 (the reporter's reproducer
#   with the maintainer's fix: "You want `optim.update(grad, opt_state, eqx.filter(model,
#   eqx.is_array))`")
# observed on jax 0.10.2 CPU (equinox 0.13.8, optax 0.2.8): runs clean under eqx.filter_jit;
#   with the whole model passed as `params`, MultiSteps' lax.cond is handed the MLP's
#   activation function and raises TypeError, with the arrays alone it accumulates the first
#   gradient and applies on the second call.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import optax
import equinox as eqx

key = jax.random.PRNGKey(0xff)
model = eqx.nn.MLP(2, 2, 2, 2, key=key)

def dummy_loss(model, x):
    return jax.vmap(model)(x).mean()

optim = optax.adamw(1e-2)
optim = optax.MultiSteps(optim, 2) # <--- remove this line and code will execute successfully 

opt_state = optim.init(eqx.filter(model, eqx.is_array))

@eqx.filter_jit
def train_step(model, opt_state, x):
    grad = eqx.filter_grad(dummy_loss)(model, x)
    updates, opt_state = optim.update(grad, opt_state, eqx.filter(model, eqx.is_array))
    model = eqx.apply_updates(model, updates)

    return model, opt_state

x = jnp.zeros((4, 2))

train_step(model, opt_state, x)


if __name__ == "__main__":
    model1, opt_state1 = train_step(model, opt_state, x)
    # MultiSteps(k=2): the first call only accumulates, the second applies.
    assert jnp.array_equal(model1.layers[0].weight, model.layers[0].weight)
    model2, _ = train_step(model1, opt_state1, x)
    assert not jnp.array_equal(model2.layers[0].weight, model.layers[0].weight)
