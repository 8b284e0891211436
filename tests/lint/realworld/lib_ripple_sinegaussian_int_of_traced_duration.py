# source: https://github.com/tedwards2412/ripple/blob/08ac42d489796d61b611a128f9961d4197460144/src/ripplegw/waveforms/SineGaussian.py
#   (gen_SineGaussian_hphc before commit fb7a1d2, "refactor: Update gen_SineGaussian_hphc to
#   use time_grid to make it jitable")
# observed on jax 0.10.2 CPU: jax.jit(gen_SineGaussian_hphc) raises ConcretizationTypeError
#   on `num = int(duration * sample_rate)`: the waveform length is computed from the traced
#   duration argument, so the generator cannot be jitted the way the rest of ripple's
#   waveforms are. The eager call runs.
# gap: other
# added: the __main__ block (an eager call, then the jitted call); the package-relative
#   imports of PI and Array are replaced by their values from ripplegw.constants and
#   ripplegw.typing.
import jax.numpy as jnp
from jax.lax import complex

PI = 3.141592653589793238462643383279502884  # stand-in: ripplegw.constants.PI
Array = jnp.ndarray  # stand-in: ripplegw.typing.Array


def semi_major_minor_from_e(e: Array) -> tuple[Array, Array]:
    """
    Calculate the semi-major and semi-minor axes of an ellipse given the
    eccentricity of the ellipse.

    Args:
        e: Eccentricity of the ellipse
    Returns:
        Semi-major (a) and semi-minor (b) axes of the ellipse
    """
    a = 1.0 / jnp.sqrt(2.0 - (e * e))
    b = a * jnp.sqrt(1.0 - (e * e))
    return a, b


def gen_SineGaussian_hphc(
    quality: Array,
    frequency: Array,
    hrss: Array,
    phase: Array,
    eccentricity: Array,
    duration: float,
    sample_rate: float = 4096.0,
) -> tuple[Array, Array]:
    """
    Generate lalinference implementation of a sine-Gaussian waveform in Jax.
    See
    git.ligo.org/lscsoft/lalsuite/-/blob/master/lalinference/lib/LALInferenceBurstRoutines.c#L381
    for details on parameter definitions.

    Args:
        quality:
            Quality factor of the sine-Gaussian waveform
        frequency:
            Central frequency of the sine-Gaussian waveform
        hrss:
            Hrss of the sine-Gaussian waveform
        phase:
            Phase of the sine-Gaussian waveform
        eccentricity:
            Eccentricity of the sine-Gaussian waveform.
            Controls the relative amplitudes of the
            hplus and hcross polarizations.
    Returns:
        Jax Arrays of plus and cross polarizations
    """
    # determine times based on requested duration and sample rate
    # and shift so that the waveform is centered at t=0
    num = int(duration * sample_rate)  # expect: JIT401
    times = jnp.arange(num) / sample_rate
    times -= duration / 2.0

    # add dimension for calculating waveforms in batch
    frequency = frequency.reshape(-1, 1)
    quality = quality.reshape(-1, 1)
    hrss = hrss.reshape(-1, 1)
    phase = phase.reshape(-1, 1)
    eccentricity = eccentricity.reshape(-1, 1)

    pi = jnp.array([PI])

    # calculate relative hplus / hcross amplitudes based on eccentricity
    # as well as normalization factors
    a, b = semi_major_minor_from_e(eccentricity)
    norm_prefactor = quality / (4.0 * frequency * jnp.sqrt(pi))
    cosine_norm = norm_prefactor * (1.0 + jnp.exp(-quality * quality))
    sine_norm = norm_prefactor * (1.0 - jnp.exp(-quality * quality))

    cos_phase, sin_phase = jnp.cos(phase), jnp.sin(phase)

    h0_plus = (
        hrss * a / jnp.sqrt(cosine_norm * (cos_phase**2) + sine_norm * (sin_phase**2))
    )
    h0_cross = (
        hrss * b / jnp.sqrt(cosine_norm * (sin_phase**2) + sine_norm * (cos_phase**2))
    )

    # cast the phase to a complex number
    phi = 2 * pi * frequency * times
    complex_phase = complex(jnp.zeros_like(phi), (phi - phase))

    # calculate the waveform and apply a tukey
    # window to taper the waveform
    fac = jnp.exp(phi**2 / (-2.0 * quality**2) + complex_phase)

    cross = fac.imag * h0_cross
    plus = fac.real * h0_plus

    return plus, cross


if __name__ == "__main__":
    import jax

    params = dict(
        quality=jnp.array([3.0, 10.0]),
        frequency=jnp.array([100.0, 250.0]),
        hrss=jnp.array([1e-22, 2e-22]),
        phase=jnp.array([0.0, 1.0]),
        eccentricity=jnp.array([0.5, 0.1]),
    )
    plus, cross = gen_SineGaussian_hphc(**params, duration=1.0)
    print(plus.shape)
    plus, cross = jax.jit(gen_SineGaussian_hphc)(**params, duration=1.0)
