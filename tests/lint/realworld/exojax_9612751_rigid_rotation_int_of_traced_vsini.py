# source: https://github.com/HajimeKawahara/exojax/commit/9612751e84c74448bc0b998b6a1249275d7f98ea
#   (src/exojax/spec/spin_rotation.py and src/exojax/utils/delta_velocity.py at its parent,
#   before the commit "JITTABLE", which builds the velocity grid once outside the traced
#   code and passes it to a jitted convolve_rigid_rotation)
# observed on jax 0.10.2 CPU: convolve_rigid_rotation rebuilds the rotation kernel's velocity
#   grid from vsini on every call: dvgrid_rigid_rotation sizes it with `int(vsini / dv)`.
#   With vsini a traced parameter (jax.jit over vsini, as a numpyro model fitting the
#   spin of a brown dwarf would trace it) that raises ConcretizationTypeError on that line;
#   the eager call works. dv itself is jnp.log1p of the resolution, a tracer under jit too.
#   Kept as exojax wrote convolve_rigid_rotation, rotkernel (and its custom jvp),
#   dvgrid_rigid_rotation and delta_velocity_from_resolution. Added: the speed of light
#   c from exojax.utils.constants, the spectrum of the unit test (a 1000-bin grid over
#   4000-4010 cm^-1 with a dip; the resolution is computed in place of
#   gen_wavenumber_grid), and the __main__ block.
# gap: other
from jax import custom_jvp
import jax
import jax.numpy as jnp
import numpy as np

c = 299792.458  # exojax.utils.constants


def dvgrid_rigid_rotation(resolution, vsini):
    """generate delta velocity grid for a rigid rotation

    Args:
        resolution: spectral resolution
        vsini: Vsini (km/s)

    Returns:
        1D array: delta velocity grid normalized by vsini 
    """
    dv = delta_velocity_from_resolution(resolution)
    Nk = int(vsini / dv) + 1  # expect: JIT401
    return dv * np.arange(-Nk, Nk + 1)/vsini


def delta_velocity_from_resolution(resolution):
    """delta velocity from spectral resolution R

    Args:
        resolution : spectral resolution

    Note: 
        See also [#294](https://github.com/HajimeKawahara/exojax/issues/294) and exojax/tests/figures/functions/delta_velocity_comp.py

    Returns:
        delta velocity
    """
    return c * jnp.log1p(1.0 / resolution)


def convolve_rigid_rotation(resolution, F0, vsini, u1=0.0, u2=0.0):
    """Apply the Rotation response to a spectrum F (No OLA and No cuDNN).

    Args:
        resolution: spectral resolution of wavenumber bin (ESLOG)
        F0: original spectrum (F0)
        vsini: V sini for rotation (km/s)
        RV: radial velocity
        u1: Limb-darkening coefficient 1
        u2: Limb-darkening coefficient 2

    Return:
        response-applied spectrum (F)
    """
    x = dvgrid_rigid_rotation(resolution, vsini)
    kernel = rotkernel(x, u1, u2)
    kernel = kernel / jnp.sum(kernel, axis=0)

    #==== still require cuDNN in Oct.15 2022================
    #convolved_signal = jnp.convolve(F0,kernel,mode="same")
    #=======================================================
    input_length = len(F0)
    filter_length = len(kernel)
    fft_length = input_length + filter_length - 1
    convolved_signal = jnp.fft.irfft(
        jnp.fft.rfft(F0, n=fft_length) * jnp.fft.rfft(kernel, n=fft_length))
    n = int((filter_length - 1) / 2)
    convolved_signal = convolved_signal[n:-n]

    return convolved_signal


@custom_jvp
def rotkernel(x, u1, u2):
    """rotation kernel w/ the quadratic Limb dwarkening law, numerator of (54) in Kawahara+2022

    Args:
        x: x variable
        u1: Limb-darkening coefficient 1
        u2: Limb-darkening coefficient 2

    Return:
        rotational kernel
    """
    x2 = x * x
    kernel = jnp.where(
        x2 <= 1.0,
        jnp.pi / 2.0 * u1 * (1.0 - x2) - 2.0 / 3.0 * jnp.sqrt(1.0 - x2) *
        (-3.0 + 3.0 * u1 + u2 + 2.0 * u2 * x2), 0.0)
    return kernel


@rotkernel.defjvp
def rotkernel_jvp(primals, tangents):
    x, u1, u2 = primals
    ux, uu1, uu2 = tangents
    x2 = x * x
    dHdx = jnp.where(
        x2 <= 1.0, -jnp.pi * x * u1 + 2.0 / 3.0 * x / jnp.sqrt(1.0 - x2) *
        (-3.0 + 3.0 * u1 + u2 + 2.0 * u2 * x2) +
        8.0 * x * u2 * jnp.sqrt(1.0 - x2), 0.0)
    dHdu1 = jnp.where(x2 <= 1.0,
                      -2.0 * jnp.sqrt(1.0 - x2) + jnp.pi / 2.0 * (1.0 - x2),
                      0.0)
    dHdu2 = jnp.where(x2 <= 1.0,
                      -2.0 * (1.0 + 2.0 * x2) * (jnp.sqrt(1.0 - x2)) / 3.0,
                      0.0)

    primal_out = rotkernel(x, u1, u2)
    tangent_out = dHdx * ux + dHdu1 * uu1 + dHdu2 * uu2
    return primal_out, tangent_out


if __name__ == "__main__":
    N = 1000
    resolution = (N - 1) / np.log(4010.0 / 4000.0)
    F0 = np.ones(N)
    F0[250 - 5:250 + 5] = 0.5
    print(convolve_rigid_rotation(resolution, F0, 40.0, u1=0.1, u2=0.1)[240:260])
    model = jax.jit(lambda vsini: convolve_rigid_rotation(resolution, F0, vsini, u1=0.1, u2=0.1))
    model(40.0)
