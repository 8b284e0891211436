# source: https://github.com/Vodolay/NovaJax/blob/1f62b16b456b4539d949b00070c5f15e55e507b8/jtransform.ipynb
#   (a JAX learning notebook: `absval` jitted as it is; the notebook leaves the failing call
#   commented out, "Uncomment to see the error message")
# observed on jax 0.10.2 CPU: absval_jit(3.2) prints the tracer's type while tracing, then
#   raises TracerBoolConversionError at `if x >= 0`: under jit x is a tracer. The print is
#   there to show the traced type (trace time, as meant). Changed: the commented call is
#   uncommented; added: the notebook's imports.
# gap: other
import jax
import jax.numpy as jnp
import jax.lax as lax

def absval(x):
    print(type(x))  # tolerate: JIT203
    if x >= 0:  # expect: JIT101
        return x
    else:
        return -x

absval_jit = jax.jit(absval)

# Uncomment to see the error message.
absval_jit(3.2)
