# source: https://github.com/jax-ml/jax/pull/8215 (the example in the description: a row of x
#   as fill_value for jnp.unique with size and axis, "useful in the fix for #8021")
# observed on jax 0.10.2 CPU: runs clean, eagerly and under jax.jit: size=10 gives the output
#   a static shape and fill_value=x[0] pads it with a row of x. Added: the imports and the
#   __main__ block that runs the same call under jit.
# gap: exemption-vs-JAX
import numpy as np
import jax
import jax.numpy as jnp

x = np.random.randint(0, 2, (10, 1, 2))
y = jnp.unique(x, axis=0, size=10, fill_value=x[0])

if __name__ == "__main__":
    y_jit = jax.jit(lambda x: jnp.unique(x, axis=0, size=10, fill_value=x[0]))(x)
    assert y_jit.shape == (10, 1, 2)
    assert (np.asarray(y_jit) == np.asarray(y)).all()
