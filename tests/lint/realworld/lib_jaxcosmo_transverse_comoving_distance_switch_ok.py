# source: https://github.com/DifferentiableUniverseInitiative/jax_cosmo/blob/3e45de09950806b440bab58cef853376504fb162/jax_cosmo/background.py
#   (`transverse_comoving_distance` as commit 3e45de0, "Make transverse comoving distance
#   jitable", wrote it: the curvature picks a branch with `lax.switch`)
# observed on jax 0.10.2 CPU (jax-cosmo 0.1.0): runs clean under jit; `cosmo.k + 1` is a
#   traced int8 index and `lax.switch` stages all three branches, and the jitted values
#   match the eager ones for open, flat and closed cosmologies. Added: imports from the
#   installed jax_cosmo for the helpers the module uses, and the checks in `__main__`.
# gap: exemption-vs-JAX
# unverifiable: needs jax_cosmo, which the test extra does not install (verified when collected, on jax 0.10.2 with jax_cosmo installed)
import jax
import jax.numpy as np
from jax import lax

import jax_cosmo as jc
import jax_cosmo.constants as const
from jax_cosmo.background import radial_comoving_distance


def transverse_comoving_distance(cosmo, a):
    r"""Transverse comoving distance in [Mpc/h] for a given scale factor.

    Parameters
    ----------
    a : array_like
        Scale factor

    Returns
    -------
    f_k : ndarray, or float if input scalar
        Transverse comoving distance corresponding to the specified
        scale factor.

    Notes
    -----
    The transverse comoving distance depends on the curvature of the
    universe and is related to the radial comoving distance through:

    .. math::

        f_k(a) = \left\lbrace
        \begin{matrix}
        R_H \frac{1}{\sqrt{\Omega_k}}\sinh(\sqrt{|\Omega_k|}\chi(a)R_H)&
            \mbox{for }\Omega_k > 0 \\
        \chi(a)&
            \mbox{for } \Omega_k = 0 \\
        R_H \frac{1}{\sqrt{\Omega_k}} \sin(\sqrt{|\Omega_k|}\chi(a)R_H)&
            \mbox{for } \Omega_k < 0
        \end{matrix}
        \right.
    """
    index = cosmo.k + 1

    def open_universe(chi):
        return const.rh / cosmo.sqrtk * np.sinh(cosmo.sqrtk * chi / const.rh)

    def flat_universe(chi):
        return chi

    def close_universe(chi):
        return const.rh / cosmo.sqrtk * np.sin(cosmo.sqrtk * chi / const.rh)

    branches = (open_universe, flat_universe, close_universe)

    chi = radial_comoving_distance(cosmo, a)

    return lax.switch(cosmo.k + 1, branches, chi)


if __name__ == "__main__":
    a = np.linspace(0.2, 1.0, 5)
    jitted = jax.jit(transverse_comoving_distance)
    for omega_k in (0.01, 0.0, -0.01):
        cosmo = jc.Planck15(Omega_k=omega_k)
        eager = transverse_comoving_distance(cosmo, a)
        assert np.allclose(jitted(cosmo, a), eager, rtol=1e-4), omega_k
