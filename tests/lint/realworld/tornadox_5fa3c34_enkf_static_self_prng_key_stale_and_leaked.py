# source: https://github.com/pnkraemer/tornadox/blob/5fa3c3404fdfad93a781a7cd54556a70f429a4ec/tornadox/enkf.py
#   (tornadox's ensemble Kalman ODE filter EnK1 after commit c852984, "enkf is jittable now",
#   which put @partial(jax.jit, static_argnums=(0, 3, 7, 8)) on attempt_step; commit 6578c01,
#   "updated readme and fixed EnK1", moved the key into the state and dropped the jit
#   ("not JIT, because of random sampling..."))
# observed on jax 0.10.2 CPU: attempt_step is jitted with `self` static, so
#   `self.prng_key` is read once, at trace time, and baked into the program as a constant:
#   every later step draws the same std_nrml_w (two calls on the same state give identical
#   samples). Its `_, self.prng_key = jax.random.split(self.prng_key)` stores a tracer on
#   the solver (leaked: isinstance(..., jax.core.Tracer) after the first step), and the split
#   consumes the key that jax.random.normal already used (with jax_debug_key_reuse on, the
#   split raises KeyReuseError for a solver given a typed key, jax.random.key(1)).
# gap: stale-state-attributes
# added: stand-ins for `from tornadox import ivp, iwp, odefilter, rv, sqrt`: rv.MultivariateNormal
#   (a namedtuple), sqrt.sqrtm_to_cholesky (tornadox's, verbatim), iwp.IntegratedWienerTransition
#   (tornadox's iwp.py at the same commit, the methods EnK1 uses, verbatim but for the
#   factorials, taken of a NumPy arange: scipy.special.factorial of a jnp.arange fails under
#   jit on jax 0.10.2, where jnp.arange returns a tracer), a minimal
#   odefilter.ODEFilter (its constructor's fields) and a first-order Taylor initialisation
#   for `self.init`; the __main__ block (a logistic ODE, two steps, and a check of key reuse).
"""ENKF solvers."""

import dataclasses
from collections import namedtuple
from functools import cached_property, partial

import jax
import jax.numpy as jnp
import jax.scipy.linalg

import numpy as np
import scipy.linalg
import scipy.special


# ---- stand-ins for tornadox.rv, tornadox.sqrt, tornadox.iwp, tornadox.odefilter ----
class rv:
    MultivariateNormal = namedtuple("MultivariateNormal", "mean cov_sqrtm")


class sqrt:
    @staticmethod
    @jax.jit
    def sqrtm_to_cholesky(St):
        upper_sqrtm = jnp.linalg.qr(St, mode="r")
        lower_sqrtm = upper_sqrtm.T
        return lower_sqrtm


class _IWP(namedtuple("_IWP", "wiener_process_dimension num_derivatives")):
    @property
    @partial(jax.jit, static_argnums=0)
    def preconditioned_discretize_1d(self):
        A_1d = jnp.flip(
            jnp.array(
                scipy.linalg.pascal(self.num_derivatives + 1, kind="lower", exact=False)
            )
        )
        Q_1d = jnp.flip(jnp.array(scipy.linalg.hilbert(self.num_derivatives + 1)))
        return A_1d, jnp.linalg.cholesky(Q_1d)

    @property
    @partial(jax.jit, static_argnums=0)
    def preconditioned_discretize(self):
        A_1d, L_Q1d = self.preconditioned_discretize_1d
        id_factor = jnp.eye(self.wiener_process_dimension)
        A = jnp.kron(id_factor, A_1d)
        L_Q = jnp.kron(id_factor, L_Q1d)
        return A, L_Q

    @partial(jax.jit, static_argnums=0)
    def nordsieck_preconditioner_1d_raw(self, dt):
        powers = jnp.arange(self.num_derivatives, -1, -1)
        scales = jnp.array(scipy.special.factorial(np.arange(self.num_derivatives, -1, -1)))
        powers = powers + 0.5
        scaling_vector = (jnp.abs(dt) ** powers) / scales
        scaling_vector_inv = (jnp.abs(dt) ** (-powers)) * scales
        return scaling_vector, scaling_vector_inv

    @partial(jax.jit, static_argnums=0)
    def nordsieck_preconditioner_1d(self, dt):
        scaling_vector, scaling_vector_inv = self.nordsieck_preconditioner_1d_raw(dt)
        return jnp.diag(scaling_vector), jnp.diag(scaling_vector_inv)

    @partial(jax.jit, static_argnums=0)
    def nordsieck_preconditioner(self, dt):
        nordsieck_precond_1d, nordsieck_procond_inv_1d = self.nordsieck_preconditioner_1d(dt)
        id_factor = jnp.eye(self.wiener_process_dimension)
        return (
            jnp.kron(id_factor, nordsieck_precond_1d),
            jnp.kron(id_factor, nordsieck_procond_inv_1d),
        )

    def projection_matrix(self, derivative_to_project_onto):
        I_d = jnp.eye(self.wiener_process_dimension)
        return jnp.kron(I_d, self.projection_matrix_1d(derivative_to_project_onto))

    def projection_matrix_1d(self, derivative_to_project_onto):
        return jnp.eye(1, self.num_derivatives + 1, derivative_to_project_onto)


class iwp:
    IntegratedWienerTransition = _IWP


def _first_order_init(f, df, y0, t0, num_derivatives):
    # stand-in for tornadox.init.TaylorMode: y0, f(t0, y0), then zeros
    rows = [y0, f(t0, y0)] + [jnp.zeros_like(y0)] * (num_derivatives - 1)
    return jnp.stack(rows), jnp.zeros((y0.shape[0] * (num_derivatives + 1),) * 2)


class odefilter:
    class ODEFilter:
        def __init__(self, *, steprule=None, num_derivatives=4, initialization=None):
            self.steprule = steprule
            self.num_derivatives = num_derivatives
            self.iwp = None
            self.init = initialization or _first_order_init
# ---- end of stand-ins ----


class StateEnsemble(
    namedtuple("_Ensemble", "t samples error_estimate reference_state")
):
    # samples are shape =  [d * (nu + 1), N]

    @cached_property
    def ensemble_size(self):
        return self.samples.shape[1]

    @cached_property
    def dim(self):
        return self.samples.shape[0]

    def mean(self):
        return jnp.mean(self.samples, 1)

    def sample_cov(self):
        return jnp.cov(self.samples)

    # Fulfill the same interface as the other ODEFilter states
    @property
    def y(self):
        return rv.MultivariateNormal(
            mean=self.mean(), cov_sqrtm=jnp.linalg.cholesky(self.sample_cov())
        )


class EnK1(odefilter.ODEFilter):
    def __init__(self, *args, ensemble_size, prng_key, **kwargs):
        super().__init__(*args, **kwargs)
        self.P0 = None
        self.E0 = None
        self.E1 = None
        self.ensemble_size = ensemble_size

        self.prng_key = prng_key

    def __repr__(self):
        name = f"{self.__class__.__name__}"
        odefilter_signature = f"num_derivatives={self.num_derivatives}, steprule={self.steprule}, initialization={self.init}"
        enkf_signature = f"ensemble_size={self.ensemble_size}, prng_key={self.prng_key}"
        return f"{name}({odefilter_signature}, {enkf_signature})"

    def initialize(self, f, t0, tmax, y0, df, df_diagonal):
        self.iwp = iwp.IntegratedWienerTransition(
            num_derivatives=self.num_derivatives,
            wiener_process_dimension=y0.shape[0],
        )

        self.P0 = self.E0 = self.iwp.projection_matrix(0)
        self.E1 = self.iwp.projection_matrix(1)

        extended_dy0, cov_sqrtm = self.init(
            f=f,
            df=df,
            y0=y0,
            t0=t0,
            num_derivatives=self.iwp.num_derivatives,
        )
        mean = extended_dy0.reshape((-1, 1), order="F")

        init_states = jnp.repeat(
            mean, self.ensemble_size, axis=1
        )  #  shape = [d * (nu + 1), N]
        assert init_states.shape == (
            y0.shape[0] * (self.num_derivatives + 1),
            self.ensemble_size,
        )
        assert jnp.allclose(init_states[:, 0], mean.squeeze())
        assert jnp.allclose(init_states[:, -1], mean.squeeze())
        return StateEnsemble(
            t=t0,
            samples=init_states,
            error_estimate=jnp.nan * jnp.ones(self.iwp.wiener_process_dimension),
            reference_state=jnp.nan * jnp.ones(self.iwp.wiener_process_dimension),
        )

    @partial(jax.jit, static_argnums=(0, 3, 7, 8))
    def attempt_step(self, state, dt, f, t0, tmax, y0, df, df_diagonal):

        t_new = state.t + dt

        # [Setup]
        PA, PQl = self.iwp.preconditioned_discretize
        P, Pinv = self.iwp.nordsieck_preconditioner(dt)

        # [Predict]
        predicted_mean = PA @ Pinv @ state.mean()

        # [Calibration]
        H, z_mean, b = self.evaluate_ode(
            t_new,
            f,
            df,
            P,
            predicted_mean,
            self.E0,
            self.E1,
        )

        error_estimate, sigma = self.estimate_error(H=H, sq=PQl, z=z_mean)

        std_nrml_w = jax.random.normal(
            self.prng_key, shape=(state.dim, state.ensemble_size)  # expect: JIT201
        )
        w = PQl @ std_nrml_w

        _, self.prng_key = jax.random.split(self.prng_key)  # expect: JIT202,JIT502  # tolerate: JIT201

        preconditioned_samples = Pinv @ state.samples

        pred_samples = PA @ preconditioned_samples + sigma * w
        sample_mean = jnp.mean(pred_samples, axis=1)
        centered = pred_samples - sample_mean[:, None]
        sample_cov = (centered @ centered.T) / (state.ensemble_size - 1)

        z_samples = H @ pred_samples + b[:, None]

        # Estimate Kalman gain
        # via Eq. (11) in https://www.math.umd.edu/~slud/RITF17/enkf-tutorial.pdf
        CHT = sample_cov @ H.T
        S = H @ CHT
        solved = jnp.linalg.solve(S, z_samples)
        gain_times_z = CHT @ solved

        # Update
        updated_samples = pred_samples - gain_times_z
        updated_samples = P @ updated_samples

        y1 = jnp.abs(self.E0 @ jnp.mean(state.samples, 1))
        y2 = jnp.abs(self.E0 @ jnp.mean(updated_samples, 1))
        reference_state = jnp.maximum(y1, y2)

        new_state = StateEnsemble(
            t=t_new,
            samples=updated_samples,
            error_estimate=error_estimate,
            reference_state=reference_state,
        )
        info = dict(num_f_evaluations=1, num_df_evaluations=1)
        return new_state, info

    @staticmethod
    @partial(jax.jit, static_argnums=(1, 2))
    def evaluate_ode(t, f, df, p, m_pred, e0, e1):
        P0 = e0 @ p
        P1 = e1 @ p
        m_at = P0 @ m_pred
        fx = f(t, m_at)
        Jx = df(t, m_at)
        H = P1 - Jx @ P0
        b = Jx @ m_at - fx
        z = H @ m_pred + b
        return H, z, b

    @staticmethod
    @jax.jit
    def estimate_error(H, sq, z):
        s_sqrtm = H @ sq
        s_chol = sqrt.sqrtm_to_cholesky(s_sqrtm.T)

        whitened_res = jax.scipy.linalg.solve_triangular(s_chol.T, z, lower=False)
        sigma_squared = whitened_res.T @ whitened_res / whitened_res.shape[0]
        sigma = jnp.sqrt(sigma_squared)
        error_estimate = sigma * jnp.sqrt(jnp.diag(s_chol @ s_chol.T))
        return error_estimate, sigma


if __name__ == "__main__":

    def f(t, y):
        return y * (1.0 - y)

    def df(t, y):
        return jnp.diag(1.0 - 2.0 * y)

    t0, tmax, y0 = 0.0, 1.0, jnp.array([0.1, 0.2])
    enk1 = EnK1(num_derivatives=2, ensemble_size=5, prng_key=jax.random.PRNGKey(1))
    state = enk1.initialize(f, t0, tmax, y0, df, None)
    dt = 0.1
    new1, _ = enk1.attempt_step(state, dt, f, t0, tmax, y0, df, None)
    new2, _ = enk1.attempt_step(state, dt, f, t0, tmax, y0, df, None)
    # observed: line 225 reads self.prng_key once per trace (self is static): the
    # second step from the same state draws the same noise although the key was "advanced"
    assert jnp.array_equal(new1.samples, new2.samples)
    # observed: line 229 stores a tracer on the solver object
    assert isinstance(enk1.prng_key, jax.core.Tracer)
    # observed: line 229 splits the key that jax.random.normal consumed on the line
    # above: a fresh solver, traced with jax_debug_key_reuse on, raises KeyReuseError
    # ("In random_split, argument 0 is already consumed")
    jax.config.update("jax_debug_key_reuse", True)
    # (the checker follows typed keys only, so this solver is given jax.random.key(1))
    fresh = EnK1(num_derivatives=2, ensemble_size=5, prng_key=jax.random.key(1))
    fresh_state = fresh.initialize(f, t0, tmax, y0, df, None)
    try:
        fresh.attempt_step(fresh_state, dt, f, t0, tmax, y0, df, None)
    except Exception as err:
        assert type(err).__name__ == "KeyReuseError", err
        assert "In random_split, argument 0 is already consumed" in str(err), err
    else:
        raise AssertionError("no key reuse detected")
    finally:
        jax.config.update("jax_debug_key_reuse", False)
