# source: https://github.com/PyAutoLabs/PyAutoLens/pull/499
#   (the accepted fix of issue #498: autolens/lens/tracer_util.py at 6d4dabc0, "fix: make
#   tracer_util JAX-safe for traced subhalo redshifts (#498)")
# observed on jax 0.10.2 CPU: under jax.jit with a traced subhalo redshift,
#   plane_redshifts_from detects the tracer (float() inside try/except raises and is
#   caught) and keeps the galaxies' input order, returning [0.5, z_subhalo, 1.0]; with
#   concrete redshifts it still sorts and deduplicates. Kept as autolens wrote
#   _redshift_is_traced, _any_traced and plane_redshifts_from (the other helpers of
#   tracer_util left out). Added: a one-attribute Galaxy stand-in for autogalaxy's Galaxy
#   (autolens is not installed), and the __main__ block, which stands in for the jitted
#   likelihood of the issue (lens at z=0.5, subhalo at a traced z, source at z=1.0).
# gap: exemption-vs-JAX
from typing import List

import jax
import jax.numpy as jnp
import numpy as np


class Galaxy:
    # stand-in for autogalaxy.Galaxy: only the redshift is used here
    def __init__(self, redshift):
        self.redshift = redshift


class ag:
    # stand-in for `import autogalaxy as ag` (type hints only)
    Galaxy = Galaxy


def _redshift_is_traced(redshift) -> bool:
    """
    Return True if ``redshift`` is a JAX traced scalar that cannot be coerced to a
    Python float without raising under ``jax.jit``.

    Galaxy redshifts are normally Python ``float`` / ``int`` values, but when a
    ``af.UniformPrior`` is bound to a ``Galaxy.redshift`` field (e.g. for a free-
    parameter subhalo redshift; see PyAutoLens issue #498), the value passed in at
    likelihood-evaluation time becomes a traced scalar under ``jax.jit``. Most
    sort-and-compare helpers in this module need to fall back to a JAX-aware path
    in that case rather than calling ``sorted`` / ``float()`` / ``<=`` on the value.
    """
    if isinstance(redshift, (int, float)):
        return False
    if isinstance(redshift, np.ndarray) and redshift.shape == ():
        return False
    try:
        float(redshift)
    except Exception:
        return True
    return False


def _any_traced(galaxies: List[ag.Galaxy]) -> bool:
    return any(_redshift_is_traced(g.redshift) for g in galaxies)


def plane_redshifts_from(galaxies: List[ag.Galaxy]) -> List[float]:
    """
    Returns a list of plane redshifts from a list of galaxies, using the redshifts of the galaxies to determine the
    unique redshifts of the planes.

    Each plane redshift corresponds to a unique redshift in the list of galaxies, such that the returned list of
    redshifts contains no duplicate values. This means multiple galaxies at the same redshift are assigned to the
    same plane.

    For example, if the input is three galaxies, two at redshift 1.0 and one at redshift 2.0, the returned list of
    redshifts would be [1.0, 2.0].

    When one or more galaxies have a JAX-traced redshift (e.g. a free-parameter
    subhalo redshift under ``jax.jit``), the function cannot Python-sort or
    ``float()``-coerce the values. It instead walks the input list in order,
    deduplicating *concrete* redshifts only and treating each traced redshift as a
    unique plane at its input position. The caller must pass galaxies in
    ascending-redshift order in this case (which ``af.Collection(galaxies=...)``
    naturally does when the user declares them as ``lens, subhalo, source``).

    Parameters
    ----------
    galaxies
        The list of galaxies used to determine the unique redshifts of the planes.

    Returns
    -------
    The list of unique redshifts of the planes.
    """

    if not _any_traced(galaxies):
        galaxies_ascending_redshift = sorted(galaxies, key=lambda galaxy: galaxy.redshift)

        # Coerce to float to avoid issues with other float types not being hashable.
        plane_redshifts = [float(galaxy.redshift) for galaxy in galaxies_ascending_redshift]

        return list(dict.fromkeys(plane_redshifts))

    plane_redshifts: List = []
    seen_concrete: set = set()
    for galaxy in galaxies:
        z = galaxy.redshift
        if _redshift_is_traced(z):
            plane_redshifts.append(z)
        else:
            zf = float(z)
            if zf not in seen_concrete:
                seen_concrete.add(zf)
                plane_redshifts.append(zf)

    return plane_redshifts


if __name__ == "__main__":
    assert plane_redshifts_from([Galaxy(1.0), Galaxy(0.5), Galaxy(0.6), Galaxy(0.5)]) == [0.5, 0.6, 1.0]

    @jax.jit
    def plane_redshifts_with_subhalo(redshift_subhalo):
        galaxies = [Galaxy(redshift=0.5), Galaxy(redshift=redshift_subhalo), Galaxy(redshift=1.0)]
        return plane_redshifts_from(galaxies=galaxies)

    zs = plane_redshifts_with_subhalo(0.6)
    assert len(zs) == 3 and jnp.allclose(jnp.stack([jnp.asarray(z) for z in zs]), jnp.array([0.5, 0.6, 1.0]))
    print(zs)
