# source: https://github.com/tedwards2412/ripple/blob/fb7a1d2ea9e9d015699a3dd2681d866ed17aa9b0/src/ripplegw/waveforms/SineGaussian.py
#   (commit fb7a1d2, "refactor: Update gen_SineGaussian_hphc to use time_grid to make it
#   jitable")
# observed on jax 0.10.2 CPU: with the time grid passed in as an array (built outside, as the
#   docstring says), jax.jit(gen_SineGaussian_hphc) traces and matches the eager waveforms
#   for a batch of two parameter sets; a second batch of the same shapes compiles nothing new.
# gap: other
# added: the __main__ block; the package-relative imports of PI and Array are replaced by
#   their values from ripplegw.constants and ripplegw.typing.
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
    time_grid: Array,
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
        time_grid:
            Time grid (centered at t=0) on which to evaluate the waveform.
            Create it using `jax.numpy.arange(-duration/2, duration/2, 1/fs)`
            where `duration` is the duration of the waveform (in seconds) and `fs`
            is the sample rate at which the waveform is evaluated.
    Returns:
        Jax Arrays of plus and cross polarizations
    """

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
    phi = 2 * pi * frequency * time_grid
    complex_phase = complex(jnp.zeros_like(phi), (phi - phase))

    # calculate the waveform and apply a tukey
    # window to taper the waveform
    fac = jnp.exp(phi**2 / (-2.0 * quality**2) + complex_phase)

    cross = fac.imag * h0_cross
    plus = fac.real * h0_plus

    return plus, cross


if __name__ == "__main__":
    import jax

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    duration, fs = 1.0, 4096.0
    time_grid = jnp.arange(-duration / 2, duration / 2, 1 / fs)
    params = dict(
        quality=jnp.array([3.0, 10.0]),
        frequency=jnp.array([100.0, 250.0]),
        hrss=jnp.array([1e-22, 2e-22]),
        phase=jnp.array([0.0, 1.0]),
        eccentricity=jnp.array([0.5, 0.1]),
    )
    eager_plus, eager_cross = gen_SineGaussian_hphc(**params, time_grid=time_grid)
    jitted = jax.jit(gen_SineGaussian_hphc)
    plus, cross = jitted(**params, time_grid=time_grid)
    assert jnp.allclose(plus, eager_plus, rtol=1e-5, atol=1e-30)
    assert jnp.allclose(cross, eager_cross, rtol=1e-5, atol=1e-30)
    other = {k: v * 1.1 for k, v in params.items()}
    before = len(compiles)
    jitted(**other, time_grid=time_grid)
    assert len(compiles) == before, compiles
