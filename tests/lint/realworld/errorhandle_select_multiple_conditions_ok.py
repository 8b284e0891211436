# source: https://errorhandle.ai/equivalent-of-jax-lax-cond-for-multiple-boolean-conditions
#   (both answers: jnp.select and lax.switch; indentation restored)
# observed on jax 0.10.2 CPU: runs clean under jit; the if/elif chain is expressed with
#   jnp.select and lax.switch, with no Python branch on traced values.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
import jax.lax as lax


@jax.jit
def func(x):
    return jnp.select(
        [x < 0, x < 1],
        [x, 2 * x],
        default=3 * x
    )

x = jnp.array([-0.5, 0.5, 1.5])
print(func(x))


@jax.jit
def func_switch(x):
    index = jnp.where(x < 0, 0, jnp.where(x < 1, 1, 2))
    return lax.switch(index, [lambda _: x, lambda _: 2 * x, lambda _: 3 * x], operand=None)

print(func_switch(jnp.float32(0.5)))
