# source: https://github.com/PyAutoLabs/PyAutoLens/issues/498
#   (autolens/lens/tracer_util.py at 4250e466, the parent of the fix 6d4dabc0, "fix: make
#   tracer_util JAX-safe for traced subhalo redshifts (#498)": "Python sorted() and float()
#   on a galaxies list containing one traced redshift trip pairwise boolean comparisons")
# observed on jax 0.10.2 CPU: with a free subhalo redshift traced by jax.jit, sorted() on
#   line 53 compares the traced redshift with the lens and source redshifts and raises
#   TracerBoolConversionError; when the traced galaxy is alone in the list (nothing to
#   compare), float() on line 56 raises ConcretizationTypeError instead. Kept as autolens
#   wrote plane_redshifts_from (the other helpers of tracer_util left out). Added: a
#   one-attribute Galaxy stand-in for autogalaxy's Galaxy (autolens is not installed), and
#   the __main__ block, which stands in for the jitted likelihood of the issue (lens at
#   z=0.5, subhalo at a traced z, source at z=1.0) and checks where each error is raised.
# gap: exemption-vs-JAX
import traceback
from typing import List

import jax


class Galaxy:
    # stand-in for autogalaxy.Galaxy: only the redshift is used here
    def __init__(self, redshift):
        self.redshift = redshift


class ag:
    # stand-in for `import autogalaxy as ag` (type hints only)
    Galaxy = Galaxy


def plane_redshifts_from(galaxies: List[ag.Galaxy]) -> List[float]:
    """
    Returns a list of plane redshifts from a list of galaxies, using the redshifts of the galaxies to determine the
    unique redshifts of the planes.

    Each plane redshift corresponds to a unique redshift in the list of galaxies, such that the returned list of
    redshifts contains no duplicate values. This means multiple galaxies at the same redshift are assigned to the
    same plane.

    For example, if the input is three galaxies, two at redshift 1.0 and one at redshift 2.0, the returned list of
    redshifts would be [1.0, 2.0].

    Parameters
    ----------
    galaxies
        The list of galaxies used to determine the unique redshifts of the planes.

    Returns
    -------
    The list of unique redshifts of the planes.
    """

    galaxies_ascending_redshift = sorted(galaxies, key=lambda galaxy: galaxy.redshift)  # expect: JIT401

    # Coerce to float to avoid issues with other float types not being hashable.
    plane_redshifts = [float(galaxy.redshift) for galaxy in galaxies_ascending_redshift]  # expect: JIT401

    return list(dict.fromkeys(plane_redshifts))


def _raising_line(fn, *args):
    # added: run fn, return the exception and the innermost line of this file it came from
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        return e, frames[-1].lineno
    raise AssertionError("expected an error")


if __name__ == "__main__":
    assert plane_redshifts_from([Galaxy(0.5), Galaxy(0.6), Galaxy(1.0), Galaxy(0.5)]) == [0.5, 0.6, 1.0]

    @jax.jit
    def plane_redshifts_with_subhalo(redshift_subhalo):
        galaxies = [Galaxy(redshift=0.5), Galaxy(redshift=redshift_subhalo), Galaxy(redshift=1.0)]
        return plane_redshifts_from(galaxies=galaxies)

    @jax.jit
    def plane_redshifts_subhalo_only(redshift_subhalo):
        return plane_redshifts_from(galaxies=[Galaxy(redshift=redshift_subhalo)])

    err, line = _raising_line(plane_redshifts_with_subhalo, 0.6)
    # observed: line 53 sorted() compares the traced subhalo redshift
    assert isinstance(err, jax.errors.TracerBoolConversionError) and line == 53, (err, line)
    err, line = _raising_line(plane_redshifts_subhalo_only, 0.6)
    # observed: line 56 float() of the traced subhalo redshift
    assert isinstance(err, jax.errors.ConcretizationTypeError) and line == 56, (err, line)
