# source: https://github.com/srush/annotated-s4/blob/e0f59c3546e0adf8743b94f5440657bcd9d1767a/s4/s4.py
#   (The Annotated S4, commit "final fixes and make blog": the Cauchy kernel is jitted without
#   donate_argnums, so kernel_DPLR can hand the same `g` to it four times)
# observed on jax 0.10.2 CPU: runs clean; kernel_DPLR gives the same kernel eagerly (cauchy
#   compiles once, g stays alive across the four calls) and under jax.jit with L static.
# gap: other
# added: the imports, random_DPLR copied from the same file, and the __main__ block that calls
#   kernel_DPLR eagerly (as test_gen_dplr does) and under jax.jit with L static (as the S4
#   layer's setup does under the training step's jit).
from functools import partial

import jax
import jax.numpy as np


@jax.jit
def cauchy(v, omega, lambd):
    """Cauchy matrix multiplication: (n), (l), (n) -> (l)"""
    cauchy_dot = lambda _omega: (v / (_omega - lambd)).sum()
    return jax.vmap(cauchy_dot)(omega)


def kernel_DPLR(Lambda, P, Q, B, C, step, L):
    # Evaluate at roots of unity
    # Generating function is (-)z-transform, so we evaluate at (-)root
    Omega_L = np.exp((-2j * np.pi) * (np.arange(L) / L))

    aterm = (C.conj(), Q.conj())
    bterm = (B, P)

    g = (2.0 / step) * ((1.0 - Omega_L) / (1.0 + Omega_L))
    c = 2.0 / (1.0 + Omega_L)

    # Reduction to core Cauchy kernel
    k00 = cauchy(aterm[0] * bterm[0], g, Lambda)
    k01 = cauchy(aterm[0] * bterm[1], g, Lambda)
    k10 = cauchy(aterm[1] * bterm[0], g, Lambda)
    k11 = cauchy(aterm[1] * bterm[1], g, Lambda)
    atRoots = c * (k00 - k01 * (1.0 / (1.0 + k11)) * k10)
    out = np.fft.ifft(atRoots, L).reshape(L)
    return out.real


# Now we can check whether it worked.
def random_DPLR(rng, N):
    l_r, p_r, q_r, b_r, c_r = jax.random.split(rng, 5)
    Lambda = jax.random.uniform(l_r, (N,))
    P = jax.random.uniform(p_r, (N,))
    Q = jax.random.uniform(q_r, (N,))
    B = jax.random.uniform(b_r, (N, 1))
    C = jax.random.uniform(c_r, (1, N))
    return Lambda, P, Q, B, C


if __name__ == "__main__":
    L, N = 16, 4
    Lambda, P, Q, B, C = random_DPLR(jax.random.PRNGKey(1), N)
    eager = kernel_DPLR(Lambda, P, Q, B, C, step=1.0 / L, L=L)
    again = kernel_DPLR(Lambda, P, Q, B, C, step=1.0 / L, L=L)
    jitted = jax.jit(kernel_DPLR, static_argnums=6)(Lambda, P, Q, B, C, 1.0 / L, L)
    assert eager.shape == (L,)
    assert np.allclose(eager, again) and np.allclose(eager, jitted, atol=1e-5)
