# source: https://github.com/spdes/computational-sde-intro-lecture/blob/daf142b23eb16c3195d5b6c1e7e7800c67fc4e43/lectures/seminar_lectures/zhao_jax_workshop/6-jax_clinic_control_flow.ipynb
#   (a JAX workshop's notebook, "Jax control flow": its "Can I do the same in jax?" slide,
#   which keeps the history of a recursion by assigning into an accumulator inside the
#   fori_loop body)
# observed on jax 0.10.2 CPU: recursion(jnp.array(0.1), 0.2 * jnp.ones((10, ))) raises
#   TypeError at `xs[k] = x` ("JAX arrays are immutable"), the line the notebook names.
#   The slide reads `T` from outside the function without defining it; the stand-in is
#   `T = 10`, the length of the notebook's input. Added: the imports and the call, the
#   notebook's call of the previous version of recursion.
# gap: types
import jax
import jax.numpy as jnp

T = 10

@jax.jit
def recursion(x0, us):
    xs = jnp.zeros((T, ))

    def fori_body(k, x):
        x = 0.1 * x + us[k]
        xs[k] = x  # expect: JIT501
        return x

    return jax.lax.fori_loop(lower=0,
                             upper=us.shape[0],
                             body_fun=fori_body,
                             init_val=x0)

recursion(jnp.array(0.1), 0.2 * jnp.ones((10, )))
