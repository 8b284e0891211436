# source: https://github.com/XanaduAI/GradDFT/issues/99
#   (a user training a range-separated exchange-correlation functional with GradDFT, a
#   differentiable DFT library: the jitted training kernel raises TracerBoolConversionError in
#   Molecule.select_HF_omegas, grad_dft/molecule.py; the method and Molecule.HF_energy_density
#   are kept as the library has them at commit 941afc28a6b24477369d638b07ca64c6a46365ba, with
#   HF_energy_density's module-level kernel)
# observed on jax 0.10.2 CPU: the Molecule is a flax struct dataclass, so its omegas field is
#   a pytree leaf and a tracer inside the jitted energy; `o not in self.omegas` compares the
#   Python float with that tracer and asks for a bool: TracerBoolConversionError at the `if`
#   of select_HF_omegas. (The list(self.omegas).index(o) after it would fail the same way.)
# gap: types
# added: a stand-in Molecule with only the fields these methods read (rdm1, ao, omegas, chi;
#   the library's has twenty more), the @jaxtyped/@typechecked decorators of
#   HF_energy_density dropped (typeguard is not installed); the smallest stand-in for the
#   user's jitted energy (compute_hf_energy, which calls molecule.HF_energy_density([0.0])
#   as grad_dft/popular_functionals.py does) and its input: a molecule of 4 grid points,
#   2 orbitals, one omega.
from typing import Optional
from functools import partial

import jax
from jax import numpy as jnp
from jax import vmap
from jax.lax import Precision
from flax import struct
from jaxtyping import Array, Float


@partial(jax.jit, static_argnames=["precision"])
def HF_energy_density(
    rdm1: Float[Array, "spin orbitals orbitals"],
    ao: Float[Array, "grid orbitals"],
    chi: Float[Array, "grid omega spin orbitals"],
    precision: Precision = Precision.HIGHEST
) -> Float[Array, "omega spin grid"]:
    _hf_energy = (
        lambda _chi, _rdm1, _ao: - jnp.einsum("wsc,sac,a->ws", _chi, _rdm1, _ao, precision=precision)
        / 2
    )
    return vmap(_hf_energy, in_axes=(0, None, 0), out_axes=2)(chi, rdm1, ao)


@struct.dataclass
class Molecule:
    r""" Base class for storing molecule properties and methods."""
    ao: Float[Array, "grid orbitals"]
    rdm1: Float[Array, "spin orbitals orbitals"]
    omegas: Optional[Float[Array, "omega"]] = None
    chi: Optional[Float[Array, "grid omega spin orbitals"]] = None

    def select_HF_omegas(self, omegas: Float[Array, "omega"]) -> Array:
        r""" Selects the chi tensor according to the omegas passed.

        Parameters
        ----------
        omegas: Float[Array, "omega"]
            The parameter omega with which the kernel
            .. math::
                f(|r-r'|) = \erf(\omega|r-r'|)/|r-r'|

            has been computed.

        Returns
        ----------
        chi: Float[Array, "grid omega spin orbitals"]
        """

        if self.chi is None:
            raise ValueError("Precomputed chi tensor has not been loaded.")
        for o in omegas:
            if o not in self.omegas:  # expect: JIT101
                raise ValueError(
                    f"The molecule.chi tensor does not contain omega value {o}, only {self.omegas}"
                )
        indices = [list(self.omegas).index(o) for o in omegas]
        chi = jnp.stack([self.chi[:, i] for i in indices], axis=1)
        return chi

    def HF_energy_density(self, omegas: Float[Array, "omega"], *args, **kwargs) -> Array:
        chi = self.select_HF_omegas(omegas)
        return HF_energy_density(self.rdm1, self.ao, chi, *args, **kwargs)


@jax.jit
def compute_hf_energy(molecule):
    ehf = molecule.HF_energy_density([0.0])
    return jnp.sum(ehf)


molecule = Molecule(
    ao=jnp.ones((4, 2)),
    rdm1=jnp.ones((2, 2, 2)),
    omegas=jnp.array([0.0]),
    chi=jnp.ones((4, 1, 2, 2)),
)
print(compute_hf_energy(molecule))
