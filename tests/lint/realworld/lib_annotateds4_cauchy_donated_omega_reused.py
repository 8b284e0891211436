# source: https://github.com/srush/annotated-s4/blob/8aed7bd93d0e3e71ed13914ac87e3effafbe5d12/s4/s4.py
#   (The Annotated S4, commit "add jit decorator to cauchy and rearrange code slightly": the
#   Cauchy kernel is jitted with donate_argnums=1 and kernel_DPLR hands it the same `g` four
#   times; commit e0f59c3 "final fixes and make blog" drops the donation)
# observed on jax 0.10.2 CPU: the first cauchy(...) call donates g's buffer, so the second call
#   (k01) raises RuntimeError "Array has been deleted" when kernel_DPLR runs eagerly
#   (as the notebook's test_gen_dplr does). The k10 and k11 calls pass the same donated g
#   again: the same bug, never reached once k01 raises, so they are tolerated.
# gap: other
# added: the imports, random_DPLR copied from the same file, and the __main__ block that calls
#   kernel_DPLR on a random DPLR matrix as test_gen_dplr does.
from functools import partial

import jax
import jax.numpy as np


@partial(jax.jit, donate_argnums=1)
def cauchy(v, omega, lambd):
    """ Cauchy matrix multiplication: (n), (l), (n) -> (l) """
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
    k01 = cauchy(aterm[0] * bterm[1], g, Lambda)  # expect: JIT504
    k10 = cauchy(aterm[1] * bterm[0], g, Lambda)  # tolerate: JIT504
    k11 = cauchy(aterm[1] * bterm[1], g, Lambda)  # tolerate: JIT504
    atRoots = c * (k00 - k01 * (1.0 / (1.0 + k11)) * k10)
    out = np.fft.ifft(atRoots, L).reshape(L)
    return out.real


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
    kernel_DPLR(Lambda, P, Q, B, C, step=1.0 / L, L=L)
