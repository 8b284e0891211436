# source: https://github.com/HajimeKawahara/exojax/commit/9612751e84c74448bc0b998b6a1249275d7f98ea
#   (src/exojax/spec/spin_rotation.py and src/exojax/utils/delta_velocity.py as the commit
#   "JITTABLE" leaves them: the velocity grid is made once, for the largest vsini allowed,
#   and the jitted convolve_rigid_rotation only divides it by the traced vsini)
# observed on jax 0.10.2 CPU: dvgrid_rigid_rotation runs eagerly on concrete numbers, and
#   convolve_rigid_rotation (jitted, as exojax decorates it) compiles once for a fixed-size
#   vr_array and gives a new spectrum for each vsini, also under jax.grad over vsini.
#   Kept as exojax wrote convolve_rigid_rotation, rotkernel (and its custom jvp),
#   dvgrid_rigid_rotation and delta_velocity_from_resolution. Added: the speed of light c
#   from exojax.utils.constants, the spectrum of the unit test (a 1000-bin grid over
#   4000-4010 cm^-1 with a dip; the resolution is computed in place of
#   gen_wavenumber_grid), and the __main__ block.
# gap: other
from jax import custom_jvp
import jax
import jax.numpy as jnp
from jax import jit
import numpy as np

c = 299792.458  # exojax.utils.constants


def dvgrid_rigid_rotation(resolution, vsini_max):
    """generate delta velocity grid for a rigid rotation

    Args:
        resolution: spectral resolution
        vsini: maximum Vsini allowed (km/s)

    Returns:
        1D array: delta velocity grid 
    """
    dv = delta_velocity_from_resolution(resolution)
    Nk = (vsini_max / dv) + 1
    Nk = Nk.astype(int)
    return dv * np.arange(-Nk, Nk + 1)


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


@jit
def convolve_rigid_rotation(F0, vr_array, vsini, u1=0.0, u2=0.0):
    """Apply the Rotation response to a spectrum F (No OLA and No cuDNN).

    Args:
        F0: original spectrum (F0)
        vr_array: fix-sized vr array for kernel, see utils.dvgrid_rigid_rotation
        vsini: V sini for rotation (km/s)
        RV: radial velocity
        u1: Limb-darkening coefficient 1
        u2: Limb-darkening coefficient 2

    Return:
        response-applied spectrum (F)
    """
    kernel = rotkernel(vr_array/vsini, u1, u2)
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
    vr_array = dvgrid_rigid_rotation(resolution, 60.0)
    F40 = convolve_rigid_rotation(F0, vr_array, 40.0, u1=0.1, u2=0.1)
    F20 = convolve_rigid_rotation(F0, vr_array, 20.0, u1=0.1, u2=0.1)
    assert F40.shape == F0.shape and not np.allclose(F40, F20)
    depth = jax.grad(lambda vsini: convolve_rigid_rotation(F0, vr_array, vsini, u1=0.1, u2=0.1)[250])
    print(F40[240:260], depth(40.0))
