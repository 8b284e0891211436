# source: https://github.com/DifferentiableUniverseInitiative/jax_cosmo/blob/ae3cefdccb0859c80d8ec19fa48a178ecd9977f1/jax_cosmo/background.py
#   (`transverse_comoving_distance` before commit 3e45de0, "Make transverse comoving
#   distance jitable", replaced the if/elif on the curvature with `lax.switch`)
# observed on jax 0.10.2 CPU (jax-cosmo 0.1.0): the jitted call raises
#   TracerBoolConversionError at `if cosmo.k < 0:`: the Cosmology is a pytree whose Omega_k
#   is traced under jit, and `cosmo.k` (made an array by commit cf8500c, "Make Cosmology.k
#   jitable", the same day) is `-np.sign(Omega_k)`, a tracer. Added: imports from the
#   installed jax_cosmo for the helpers the module uses, and a jitted call in `__main__`.
# gap: types
# unverifiable: needs jax_cosmo, which the test extra does not install (verified when collected, on jax 0.10.2 with jax_cosmo installed)
import jax
import jax.numpy as np

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
    chi = radial_comoving_distance(cosmo, a)
    if cosmo.k < 0:  # Open universe  # expect: JIT101
        return const.rh / cosmo.sqrtk * np.sinh(cosmo.sqrtk * chi / const.rh)
    elif cosmo.k > 0:  # Closed Universe  # tolerate: JIT101
        return const.rh / cosmo.sqrtk * np.sin(cosmo.sqrtk * chi / const.rh)
    else:
        return chi


if __name__ == "__main__":
    cosmo = jc.Planck15(Omega_k=0.01)
    a = np.linspace(0.2, 1.0, 5)
    eager = transverse_comoving_distance(cosmo, a)
    jitted = jax.jit(transverse_comoving_distance)(cosmo, a)
