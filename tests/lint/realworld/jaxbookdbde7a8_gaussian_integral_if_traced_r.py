# source: https://github.com/1040403998/JAX-/blob/dbde7a803ad41fa3b7bcb7f6c4d7774d86fd97d0/chapter05/%E4%BB%A3%E7%A0%81%E7%A4%BA%E4%BE%8B5.6.py (source code of the Chinese book 《JAX可微分编程》, code example 5.6 "条件控制语句": a legal shape-based if, then "不合法的条件控制语句" with `# jitted_I0 = jax.jit(I0)  # err`)
# observed on jax 0.10.2 CPU: jax.errors.TracerBoolConversionError raised at the `if r < 1e-6:` line while jitted_I0 traces I0 (the traced radius r is used as a Python bool); the shape-based if in f above it is legal and runs
# gap: flow-sensitive
# (added: the author's commented-out `jitted_I0 = jax.jit(I0)  # err` is un-commented and called with the same arguments the author's lax.cond version is called with; the lax.cond version that follows in the example is in jaxbookdbde7a8_gaussian_integral_lax_cond_ok.py)
import jax
from jax import lax
import jax.numpy as jnp


""" 合法的条件控制语句 """
def f(x):
    assert isinstance(x, jnp.ndarray)
    if x.shape[0] < 4:
      return x * 2
    else:
      return - x * 2

jitted_f = jax.jit(f)
arr1 = jnp.arange(3)
arr2 = jnp.arange(5)
print(jitted_f(arr1))   # [ 0  2  4]
print(jitted_f(arr2))   # [ 0 -2 -4 -6 -8]

print(jax.make_jaxpr(f)(arr1))
# { lambda  ; a.
#   let b = mul a 2
#   in (b,) }
print(jax.make_jaxpr(f)(arr2))
# { lambda  ; a.
#   let b = neg a
#       c = mul b 2
#   in (c,) }

""" 不合法的条件控制语句 """

import jax
import jax.numpy as jnp
from jax.scipy.special import erf

def I0(alpha, r1, r2, r3):
    r = jnp.sqrt(r1**2 + r2**2 + r3**2)
    if r < 1e-6:  # expect: JIT101
        return 2 * jnp.pi / alpha
    else:
        return (jnp.pi / alpha)**1.5 * erf(jnp.sqrt(alpha) * r) / r \
              * jnp.exp(- 0.25 * alpha * r**2)

jitted_I0 = jax.jit(I0)  # err
print(jitted_I0(1.0, 0.0, 0.0, 0.0))
