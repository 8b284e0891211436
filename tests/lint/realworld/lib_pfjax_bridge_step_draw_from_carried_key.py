# source: https://github.com/mlysy/pfjax/blob/a63aab1de2c12e6955943da1e029be3bedb0b6b8/src/pfjax/sde.py
#   (SDEModel.bridge_step before commit e59197c, "fixed duplicated use of PRNG key in
#   sde.SDEModel", which draws the bridge proposal from `subkey`)
# observed on jax 0.10.2 CPU: scan_fun splits the carried key into `key, subkey`, draws
#   the proposal with `key` (line 158) and carries that same `key` on, so the next step
#   splits the key the previous draw consumed (line 157); `subkey` is never used. Under
#   jax.jit the filter runs silently. With jax_debug_key_reuse and a typed key, running
#   the scan step by step under jax.disable_jit raises KeyReuseError "Previously-consumed
#   key passed to random_split" at line 157 on the second step.
#   Kept verbatim (docstrings shortened, commented-out code left out): the Euler helpers,
#   SDEModel's constructor, is_valid, is_valid_state, state_lpdf, _bridge_mv and
#   bridge_step, mvn_bridge_mv from src/pfjax/mvn_bridge.py (called there as
#   `mb.mvn_bridge_mv`), and the constructor, drift, diff and meas_lpdf of LotVolModel
#   from src/pfjax/models/lotvol_model.py. The parameter values, the previous state and
#   the measurement (with the bridge's Y, A and Omega for a log-measurement) are inputs
#   chosen for the run.
# gap: other
import traceback

import jax
import jax.numpy as jnp
import jax.scipy as jsp
from jax import lax, random


def euler_sim_diag(key, x, dt, drift, diff, theta):
    """Simulate SDE with diagonal diffusion using Euler-Maruyama discretization."""
    dr = x + drift(x, theta) * dt
    df = diff(x, theta) * jnp.sqrt(dt)
    return dr + df * random.normal(key, (x.shape[0],))


def euler_lpdf_diag(x_curr, x_prev, dt, drift, diff, theta):
    """Calculate the log PDF of observations from an SDE with diagonal diffusion."""
    return jsp.stats.norm.logpdf(
        x=x_curr,
        loc=x_prev + drift(x_prev, theta) * dt,
        scale=diff(x_prev, theta) * jnp.sqrt(dt),
    )


def euler_sim_var(key, x, dt, drift, diff, theta):
    """Simulate SDE with dense diffusion using Euler-Maruyama discretization."""
    return jax.random.multivariate_normal(
        key, mean=x + drift(x, theta) * dt, cov=diff(x, theta) * dt
    )


def euler_lpdf_var(x_curr, x_prev, dt, drift, diff, theta):
    """Calculate the log PDF of observations from an SDE with dense diffusion."""
    return jsp.stats.multivariate_normal.logpdf(
        x=x_curr, mean=x_prev + drift(x_prev, theta) * dt, cov=diff(x_prev, theta) * dt
    )


def mvn_bridge_mv(mu_W, Sigma_W, mu_Y, AS_W, Sigma_Y, Y):
    """Calculate the mean and variance of `p(W|Y)`."""
    Sigma_chol = jsp.linalg.cho_factor(Sigma_Y, True)
    sol = jnp.matmul(
        AS_W.T,
        jsp.linalg.cho_solve(Sigma_chol, jnp.hstack([jnp.array([Y - mu_Y]).T, AS_W])),
    )
    return mu_W + jnp.squeeze(sol[:, 0]), Sigma_W - sol[:, 1:]


class SDEModel(object):
    """Base class for SDE models."""

    def __init__(self, dt, n_res, diff_diag):
        self._dt = dt
        self._n_res = n_res
        # the following members are only used for testing
        self._diff_diag = diff_diag
        # also have self._n_state for testing,
        # defined in the derived model class
        if diff_diag:
            # instantiate methods depending on whether the diffusion is diagonal
            def euler_sim(self, key, x, dt, theta):
                return euler_sim_diag(key, x, dt, self.drift, self.diff, theta)

            def euler_lpdf(self, x_curr, x_prev, dt, theta):
                return euler_lpdf_diag(x_curr, x_prev, dt, self.drift, self.diff, theta)

            def diff_full(self, x, theta):
                return jnp.diag(self.diff(x, theta))

            setattr(self.__class__, "euler_sim", euler_sim)
            setattr(self.__class__, "euler_lpdf", euler_lpdf)
            setattr(self.__class__, "diff_full", diff_full)
        else:

            def euler_sim(self, key, x, dt, theta):
                return euler_sim_var(key, x, dt, self.drift, self.diff, theta)

            def euler_lpdf(self, x_curr, x_prev, dt, theta):
                return euler_lpdf_var(x_curr, x_prev, dt, self.drift, self.diff, theta)

            def diff_full(self, x, theta):
                return self.diff(x, theta)

            setattr(self.__class__, "euler_sim", euler_sim)
            setattr(self.__class__, "euler_lpdf", euler_lpdf)
            setattr(self.__class__, "diff_full", diff_full)

    def is_valid(self, x, theta):
        """Checks whether SDE observations are valid."""
        return jnp.array(True)

    def is_valid_state(self, x, theta):
        """Checks whether SDE latent variables are valid."""
        valid_x = jax.vmap(self.is_valid, in_axes=(0, None))(x, theta)
        nan_x = jnp.any(jnp.isnan(x), axis=1)
        return jnp.all(valid_x, where=~nan_x) & jnp.all(~nan_x)

    def state_lpdf(self, x_curr, x_prev, theta):
        """Calculates the log-density of `p(x_curr | x_prev, theta)`."""
        x0 = jnp.concatenate([x_prev[-1][None], x_curr[:-1]])
        x1 = x_curr
        lp = jax.vmap(
            lambda xp, xc: self.euler_lpdf(
                x_curr=xc, x_prev=xp, dt=self._dt / self._n_res, theta=theta
            )
        )(x0, x1)
        return jnp.sum(lp)

    def _bridge_mv(self, x, theta, n, Y, A, Omega):
        r"""
        Mean and variance of bridge proposal specific for SDEs.
        """
        k = self._n_res - n
        dt_res = self._dt / self._n_res
        dr = self.drift(x, theta) * dt_res
        df = self.diff_full(x, theta) * dt_res
        return mvn_bridge_mv(
            mu_W=x + dr,
            Sigma_W=df,
            mu_Y=jnp.matmul(A, x + k * dr),
            AS_W=jnp.matmul(A, df),
            Sigma_Y=k * jnp.linalg.multi_dot([A, df, A.T]) + Omega,
            Y=Y,
        )

    def bridge_step(self, key, x_prev, y_curr, theta, Y, A, Omega):
        """
        Update particle and calculate log-weight for a particle filter with MVN bridge proposals.
        """

        # lax.scan setup
        def scan_fun(carry, n):
            key = carry["key"]
            x = carry["x"]
            # calculate mean and variance of bridge proposal
            mu_bridge, Sigma_bridge = self._bridge_mv(
                x=x, theta=theta, n=n, Y=Y, A=A, Omega=Omega
            )
            # bridge proposal
            key, subkey = random.split(key)  # tolerate: JIT502
            x_prop = random.multivariate_normal(key, mean=mu_bridge, cov=Sigma_bridge)  # expect: JIT502
            # bridge log-pdf
            lp_prop = jsp.stats.multivariate_normal.logpdf(
                x=x_prop, mean=mu_bridge, cov=Sigma_bridge
            )
            res_carry = {"x": x_prop, "key": key, "lp": carry["lp"] + lp_prop}
            res_stack = {"x": x_prop}
            return res_carry, res_stack

        scan_init = {"x": x_prev[self._n_res - 1], "key": key, "lp": jnp.array(0.0)}
        last, full = lax.scan(scan_fun, scan_init, jnp.arange(self._n_res))
        # return last, full
        x_prop = full["x"]  # bridge proposal
        # log-weight for the proposal
        logw = self.state_lpdf(x_curr=x_prop, x_prev=x_prev, theta=theta)
        logw = logw + self.meas_lpdf(y_curr, x_prop, theta) - last["lp"]
        logw = lax.cond(
            self.is_valid_state(x_prop, theta),
            lambda _x: logw,
            lambda _x: -jnp.inf,
            0.0,
        )
        return x_prop, logw


class LotVolModel(SDEModel):
    """Lotka-Volterra predator-prey model (src/pfjax/models/lotvol_model.py)."""

    def __init__(self, dt, n_res):
        # creates "private" variables self._dt and self._n_res
        super().__init__(dt, n_res, diff_diag=True)
        self._n_state = (self._n_res, 2)

    def drift(self, x, theta):
        alpha = theta[0]
        beta = theta[1]
        gamma = theta[2]
        delta = theta[3]
        return jnp.array([alpha - beta * jnp.exp(x[1]),
                          -gamma + delta * jnp.exp(x[0])])

    def diff(self, x, theta):
        return theta[4:6]

    def meas_lpdf(self, y_curr, x_curr, theta):
        tau = theta[6:8]
        return jnp.sum(
            jsp.stats.norm.logpdf(y_curr,
                                  loc=jnp.exp(x_curr[-1]), scale=tau)
        )


if __name__ == "__main__":
    model = LotVolModel(dt=0.1, n_res=5)
    theta = jnp.array([1.0, 1.0, 4.0, 1.0, 0.1, 0.1, 0.25, 0.25])
    x_prev = jnp.zeros((5, 2))
    y_curr = jnp.array([1.2, 0.9])
    Y, A, Omega = jnp.log(y_curr), jnp.eye(2), jnp.diag((theta[6:8] / y_curr) ** 2)
    jit_key, eager_key = random.split(random.key(0))

    x_prop, logw = jax.jit(model.bridge_step)(jit_key, x_prev, y_curr, theta, Y, A, Omega)
    assert x_prop.shape == (5, 2) and bool(jnp.isfinite(logw))  # runs silently

    jax.config.update("jax_debug_key_reuse", True)
    try:
        with jax.disable_jit():
            model.bridge_step(eager_key, x_prev, y_curr, theta, Y, A, Omega)
        raise AssertionError("no key reuse reported")
    except jax.errors.KeyReuseError as e:
        line = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__][-1].lineno
        # observed: line 158 draws from the key that the next step splits again
        assert line == 157, line
