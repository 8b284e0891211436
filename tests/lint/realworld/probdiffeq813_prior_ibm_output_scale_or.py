# source: https://github.com/pnkraemer/probdiffeq/blob/f81613dd0cff69e6bf110b504cad5c2521ecfdfc/probdiffeq/ivpsolvers.py
#   (prior_ibm before https://github.com/pnkraemer/probdiffeq/pull/813 "Fix a tracer
#   conversion issue": "If output_scale is a traced array, `output_scale or ...` doesn't
#   work. This PR fixes this.")
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `output_scale or ...` in
#   prior_ibm: under jit the output scale handed in by the caller is a tracer, and `or` asks
#   for its truth value. Kept verbatim: _MarkovProcess and prior_ibm. Added: the imports
#   (jax.numpy for probdiffeq.backend.numpy, typing.NamedTuple for containers.NamedTuple);
#   a stand-in for impl.choose("isotropic", ...) holding an isotropic state-space model
#   with prototypes.output_scale() and conditional.ibm_transitions (system_matrices_1d and
#   the preconditioner as in probdiffeq/impl/_conditional.py, the noise kept as a tuple);
#   and the jitted caller in __main__ that estimates the output scale, so it is traced.
# gap: other
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as np
from jax.scipy.special import factorial


def system_matrices_1d(num_derivatives, output_scale):
    # as in probdiffeq/impl/_conditional.py
    x = np.arange(0, num_derivatives + 1)
    binom = factorial(x[:, None]) / (
        factorial(x[:, None] - x[None, :]) * factorial(x[None, :])
    )
    A_1d = np.flip(np.where(x[:, None] >= x[None, :], binom, 0.0).T)
    Q_1d = np.flip(1 / (x[:, None] + x[None, :] + 1))
    return A_1d, output_scale * np.linalg.cholesky(Q_1d)


class _IsotropicConditional:
    # stand-in for probdiffeq's IsotropicConditional (ibm_transitions only)
    def __init__(self, num_derivatives, ode_shape):
        self.num_derivatives = num_derivatives
        self.ode_shape = ode_shape

    def ibm_transitions(self, *, output_scale):
        A, q_sqrtm = system_matrices_1d(self.num_derivatives, output_scale)
        q0 = np.zeros((self.num_derivatives + 1, *self.ode_shape))
        noise = (q0, q_sqrtm)
        powers = np.arange(self.num_derivatives, -1.0, step=-1.0)
        scales = factorial(powers)
        powers = powers + 0.5

        def discretise(dt):
            p = np.power(np.abs(dt), powers) / scales
            p_inv = np.power(np.abs(dt), -powers) * scales
            return (A, noise), (p, p_inv)

        return discretise


class _IsotropicPrototypes:
    def output_scale(self):
        return np.empty(())


class _SSM(NamedTuple):
    prototypes: Any
    conditional: Any


class impl:
    # stand-in for probdiffeq.impl.impl
    @staticmethod
    def choose(ssm_fact, *, tcoeffs_like):
        assert ssm_fact == "isotropic"
        num_derivatives = len(tcoeffs_like) - 1
        ode_shape = np.shape(tcoeffs_like[0])
        return _SSM(_IsotropicPrototypes(), _IsotropicConditional(num_derivatives, ode_shape))


class _MarkovProcess(NamedTuple):
    tcoeffs: Any
    output_scale: Any
    discretize: Callable

    @property
    def num_derivatives(self):
        return len(self.tcoeffs) - 1


def prior_ibm(tcoeffs, *, ssm_fact: str, output_scale=None):
    """Construct an adaptive(/continuous-time), multiply-integrated Wiener process."""
    ssm = impl.choose(ssm_fact, tcoeffs_like=tcoeffs)

    output_scale_user = output_scale or np.ones_like(ssm.prototypes.output_scale())  # expect: JIT103
    discretize = ssm.conditional.ibm_transitions(output_scale=output_scale_user)

    output_scale_calib = np.ones_like(ssm.prototypes.output_scale())
    prior = _MarkovProcess(tcoeffs, output_scale_calib, discretize=discretize)
    return prior, ssm


if __name__ == "__main__":
    u0 = np.asarray([20.0, 20.0])
    tcoeffs = (u0, np.asarray([-10.0, 4.0]), np.zeros(2))

    @jax.jit
    def transition_noise(output_scale, dt):
        ibm, ssm = prior_ibm(tcoeffs, output_scale=output_scale, ssm_fact="isotropic")
        (A, (q0, q_sqrtm)), (p, p_inv) = ibm.discretize(dt)
        return p[:, None] * q_sqrtm

    transition_noise(10.0, 0.1)
