# source: https://github.com/jax-ml/jax/issues/8945 (jakevdp's minimal repro)
# observed on jax 0.10.2 CPU: runs clean and is jit-invariant: both calls give int16. jit of
#   jnp.array as it is traces the list's elements, which is fine: no shape, length or axis is
#   taken from them. (In the report, on jax 0.2.26, the eager call gave int32 and the jitted
#   one int16.)
# gap: exemption-vs-JAX
import numpy as np
import jax.numpy as jnp
from jax import jit

x = [0, np.int16(1)]

print(jnp.array(x).dtype)
# int32

print(jit(jnp.array)(x).dtype)
# int16


if __name__ == "__main__":
    assert jnp.array(x).dtype == jit(jnp.array)(x).dtype
    assert (jit(jnp.array)(x) == jnp.array(x)).all()
