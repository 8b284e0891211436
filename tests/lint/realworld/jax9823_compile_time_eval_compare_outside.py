# source: https://github.com/jax-ml/jax/issues/9823
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if z > 0:`. z is computed
#   under jax.ensure_compile_time_eval() and is concrete, but the comparison `z > 0` runs
#   after the context manager has closed, so under jit it is staged out and returns a
#   tracer (the maintainer's fix moves the comparison inside the context).
# gap: omnistaging
import jax
import jax.numpy as jnp

print(jax.__version__)  # 0.3.1

@jax.jit
def f(x):
    with jax.ensure_compile_time_eval():
        y = jnp.sin(3.0)
        z = jnp.sin(y)
        #z = z.item()  # adding this works
    if z > 0:  # the value of z is availble and can be used in control flow   # expect: JIT101
        return jnp.sin(x)
    else:
        return jnp.cos(x)
    
f(0)
