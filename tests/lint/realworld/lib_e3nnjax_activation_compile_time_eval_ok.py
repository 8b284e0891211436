# source: https://github.com/e3nn/e3nn-jax/blob/04e761c8e9a42c339cc712fb8b9af85ddd618eab/e3nn_jax/_src/activation.py
# observed on jax 0.10.2 CPU: under jax.jit every helper runs clean: the constants they
#   compute (`c.item()`, `if jnp.max(...) < 1e-5`, `jnp.allclose(...)`) are evaluated
#   eagerly inside jax.ensure_compile_time_eval(), so they are concrete while the jitted
#   function is traced. The helpers are copied as they are (docstrings shortened);
#   `scalar_activation` needs e3nn's IrrepsArray (not installed), so `__main__` applies the
#   same helper calls to a plain array under jit.
# gap: exemption-vs-JAX
from typing import Callable

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp


def soft_odd(x):
    """Smooth odd function that can be used as activation function for odd scalars."""
    return (1 - jnp.exp(-(x**2))) * x


def normalspace(n: int) -> jax.Array:
    r"""Sequence of normally distributed numbers."""
    return jnp.sqrt(2) * jsp.erfinv(jnp.linspace(-1.0, 1.0, n + 2)[1:-1])


def normalize_function(phi: Callable[[float], float]) -> Callable[[float], float]:
    r"""Normalize a function, :math:`\psi(x)=\phi(x)/c`."""
    with jax.ensure_compile_time_eval():
        # k = jax.random.PRNGKey(0)
        # x = jax.random.normal(k, (1_000_000,))
        x = normalspace(1_000_001)
        c = jnp.mean(phi(x) ** 2) ** 0.5
        c = c.item()

        if jnp.allclose(c, 1.0):
            return phi
        else:

            def rho(x):
                return phi(x) / c

            return rho


def parity_function(phi: Callable[[float], float]) -> int:
    with jax.ensure_compile_time_eval():
        x = jnp.linspace(0.0, 10.0, 256)

        a1, a2 = phi(x), phi(-x)
        if jnp.max(jnp.abs(a1 - a2)) < 1e-5:
            return 1
        elif jnp.max(jnp.abs(a1 + a2)) < 1e-5:
            return -1
        else:
            return 0


def is_zero_in_zero(phi: Callable[[float], float]) -> bool:
    with jax.ensure_compile_time_eval():
        return jnp.allclose(phi(jnp.array(0.0)), 0.0)


if __name__ == "__main__":

    @jax.jit
    def odd_scalars(x):
        act = normalize_function(soft_odd)
        assert parity_function(act) == -1
        assert is_zero_in_zero(act)
        return act(x)

    @jax.jit
    def even_scalars(x):
        act = normalize_function(jax.nn.gelu)
        assert parity_function(act) == 0
        return act(x)

    x = jnp.linspace(-2.0, 2.0, 5)
    print(odd_scalars(x), even_scalars(x))
