# source: https://github.com/jax-ml/jax/issues/15386 (the maintainer's answer: mark the
#   length static and pass it as a Python int)
# observed on jax 0.10.2 CPU: runs clean; with static_argnums=1 the length 1024 is a
#   Python int while tracing, and the output has the static shape (1024,). Added: the
#   function and inputs of the report, and the print.
# gap: other
import jax
import jax.numpy as jnp

def my_fft(a,b):
    return jnp.fft.fft(a,b)

a = jnp.arange(1000)

out = jax.jit(my_fft, static_argnums=1)(a, 1024)
print(out.shape)
