# source: https://github.com/jax-ml/jax/issues/15386
# observed on jax 0.10.2 CPU: the eager call runs; jax.jit(my_fft)(a, b) raises at the
#   jnp.fft.fft line: the FFT length `b` is a traced argument there, and the length sets
#   the output shape, which must be a Python int. Added: nothing.
# gap: other
import jax
import jax.numpy as jnp

def my_fft(a,b):
    return jnp.fft.fft(a,b)  # expect: JIT404

a = jnp.arange(1000)
b = jnp.array(1024)

# non-jit is valid:
_ = my_fft(a,b)

# jit fails:
_ = jax.jit(my_fft)(a,b)
