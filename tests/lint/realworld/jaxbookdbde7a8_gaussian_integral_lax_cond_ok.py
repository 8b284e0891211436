# source: https://github.com/1040403998/JAX-/blob/dbde7a803ad41fa3b7bcb7f6c4d7774d86fd97d0/chapter05/%E4%BB%A3%E7%A0%81%E7%A4%BA%E4%BE%8B5.6.py (source code of the Chinese book 《JAX可微分编程》, code example 5.6, part "基于lax.cond的条件控制语句": the fix of the traced `if r < 1e-6` in jaxbookdbde7a8_gaussian_integral_if_traced_r.py)
# observed on jax 0.10.2 CPU: runs clean; jitted_I0(1.0, 0.0, 0.0, 0.0) = 2*pi, and it matches the eager I0 at r > 0
# gap: exemption-vs-JAX
# (added: imports the example has further up, and the __main__ block)
import jax
import jax.numpy as jnp
from jax.scipy.special import erf

""" 基于lax.cond的条件控制语句 """
from jax import lax

def I0(alpha, r1, r2, r3):
    r = jnp.sqrt(r1**2 + r2**2 + r3**2)
    return lax.cond(
      pred      = r < 1e-6,
      true_fun  = lambda void: 2. * jnp.pi / alpha,
      false_fun = lambda void: (jnp.pi / alpha)**1.5 * erf(jnp.sqrt(alpha) * r) / r \
                              * jnp.exp(- 0.25 * alpha * r**2),
      operand   = 0
    )

jitted_I0 = jax.jit(I0)
print(jitted_I0(1.0, 0.0, 0.0, 0.0))

f = lambda operand: lax.cond(True, lambda x: x+1, lambda x: x-1, operand)
print(jax.make_jaxpr(f)(jnp.array(1.0)))


if __name__ == "__main__":
    assert jnp.allclose(jitted_I0(1.0, 0.0, 0.0, 0.0), 2 * jnp.pi)
    for r1 in (0.5, 1.0, 2.0):
        assert jnp.allclose(jitted_I0(1.3, r1, 0.2, 0.1), I0(1.3, r1, 0.2, 0.1), rtol=1e-5)
    assert jnp.allclose(jax.jit(jax.vmap(I0, in_axes=(None, 0, None, None)))(1.0, jnp.array([0.0, 1.0]), 0.0, 0.0),
                        jnp.array([2 * jnp.pi, I0(1.0, 1.0, 0.0, 0.0)]))
    print("OK")
