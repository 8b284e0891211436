# source: https://github.com/Molecolab-Pisa/GPX/blob/6eed4a5d9059ac2d7050546f884818546fc9d082/gpx/models/gpr.py
#   (GPX, a Gaussian-process library of the Molecolab group in Pisa, at the commit "fixed
#   concretization error due to jitting base GPR functions": log_marginal_likelihood and predict
#   now mark return_negative and full_covariance static with `kernel`)
# observed on jax 0.10.2 CPU: runs clean. jit derives static_argnames from static_argnums, so
#   the flags passed by keyword (return_negative=True in fit's loss, full_covariance= in
#   predict) are static Python bools: GPR.fit runs scipy's L-BFGS-B on the jitted marginal
#   likelihood and its jitted gradient, and predict returns the mean and, with
#   full_covariance=True, the covariance; each flag value compiles once.
# gap: static-hashability
# added: the helpers the module imports from gpx.utils and gpx.kernels at the same commit
#   (softplus, inverse_softplus, split_params, transform/constrain/unconstrain_parameters,
#   squared_distances, squared_exponential_kernel), copied in place of the relative imports;
#   the `print` and `sample` methods (tabulate printing, sampling helper) are trimmed; the
#   __main__ block, which fits on a small 1-d data set and predicts.
from functools import partial

import jax.numpy as jnp
import jax.scipy as jsp
from jax import grad, jit
from jax.tree_util import tree_map
from jax.flatten_util import ravel_pytree

from scipy.optimize import minimize

# --- from gpx/utils.py and gpx/kernels/kernels.py at the same commit ---
@jit
def squared_distances(x1, x2):
    jitter = 1e-12
    x1s = jnp.sum(jnp.square(x1), axis=-1)
    x2s = jnp.sum(jnp.square(x2), axis=-1)
    dist = x1s[:, jnp.newaxis] - 2 * jnp.dot(x1, x2.T) + x2s + jitter
    return dist


@jit
def softplus(x):
    return jnp.logaddexp(x, 0.0)


@jit
def inverse_softplus(x):
    return jnp.log(jnp.expm1(x))


def split_params(params):
    kernel_params = params["kernel_params"]
    sigma = params["sigma"]
    return kernel_params, sigma


def transform_parameters(params, transform, ignore=None):
    if ignore is not None:
        tmp = params.copy()
        tmp = {key: value for key, value in tmp.items() if key in ignore}
        params = {key: value for key, value in params.items() if key not in ignore}
        transformed = tree_map(lambda p: transform(p), params)
        for key in tmp:
            transformed[key] = tmp[key]
    else:
        transformed = tree_map(lambda p: transform(p), params)
    return transformed


def constrain_parameters(params, transform=softplus, ignore=None):
    return transform_parameters(params, transform=transform, ignore=ignore)


def unconstrain_parameters(params, transform=inverse_softplus, ignore=None):
    return transform_parameters(params, transform=transform, ignore=ignore)


@jit
def _squared_exponential_kernel(x1, x2, lengthscale):
    z1 = x1 / lengthscale
    z2 = x2 / lengthscale
    d2 = squared_distances(z1, z2)
    return jnp.exp(-d2)


def squared_exponential_kernel(x1, x2, params):
    return _squared_exponential_kernel(x1, x2, params["lengthscale"])


# =============================================================================
# Standard Gaussian Process Regression: functions
# =============================================================================


@partial(jit, static_argnums=[3, 4])
def log_marginal_likelihood(params, x, y, kernel, return_negative=False):
    """
    Computes the log marginal likelihood for standard Gaussian Process Regression.
    Arguments
    ---------
    params  : dict
            Dictionary of parameters. Should have a 'kernel_params' keyword
            to specify kernel parameters (a ictionary) and a 'sigma' keyword
            to specify the noise.
    x       : jnp.ndarray, (M, F)
            Input matrix of M samples and F features
    y       : jnp.ndarray, (M, 1)
            Target matrix of M samples and 1 target
    kernel  : callable
            Kernel function
    Returns
    -------
    lml     : jnp.ndarray, ()
            Log marginal likelihood
    """

    kernel_params, sigma = split_params(params)

    y_mean = jnp.mean(y)
    y = y - y_mean
    m = y.shape[0]

    C_mm = kernel(x, x, kernel_params) + sigma**2 * jnp.eye(m) + 1e-10 * jnp.eye(m)
    L_m = jsp.linalg.cholesky(C_mm, lower=True)
    cy = jsp.linalg.solve_triangular(L_m, y, lower=True)

    mll = -0.5 * jnp.sum(jnp.square(cy))
    mll -= jnp.sum(jnp.log(jnp.diag(L_m)))
    mll -= m * 0.5 * jnp.log(2.0 * jnp.pi)

    if return_negative:
        return -mll

    return mll


@partial(jit, static_argnums=3)
def fit(params, x, y, kernel):
    """
    Fits a Gaussian Process Regression model.
    Arguments
    ---------
    params  : dict
            Dictionary of parameters. Should have a 'kernel_params' keyword
            to specify kernel parameters (a ictionary) and a 'sigma' keyword
            to specify the noise.
    x       : jnp.ndarray, (M, F)
            Input matrix of M samples and F features
    y       : jnp.ndarray, (M, 1)
            Target matrix of M samples and 1 target
    kernel  : callable
            Kernel function
    Returns
    -------
    c       : jnp.ndarray, (M, 1)
            Dual coefficients
    y_mean  : jnp.ndarray, ()
            Target mean
    """

    kernel_params, sigma = split_params(params)

    y_mean = jnp.mean(y)
    y = y - y_mean

    C_mm = kernel(x, x, kernel_params) + sigma**2 * jnp.eye(y.shape[0])
    c = jnp.linalg.solve(C_mm, y).reshape(-1, 1)

    return c, y_mean


@partial(jit, static_argnums=[5, 6])
def predict(
    params,
    x_train,
    x,
    c,
    y_mean,
    kernel,
    full_covariance=False,
):
    """
    Predict with a Gaussian Process Regression model.
    Arguments
    ---------
    params          : dict
                    Dictionary of parameters. Should have a 'kernel_params' keyword
                    to specify kernel parameters (a ictionary) and a 'sigma' keyword
                    to specify the noise.
    x               : jnp.ndarray, (M, F)
                    Input matrix of M samples and F features
    y               : jnp.ndarray, (M, 1)
                    Target matrix of M samples and 1 target
    c               : jnp.ndarray, (M, 1)
                    Dual coefficients
    y_mean          : jnp.ndarray, ()
                    Target mean
    kernel          : callable
                    Kernel function
    full_covariance : bool
                    Whether to return also the full posterior covariance
    Returns
    -------
    mu              : jnp.ndarray, (M, 1)
                    Predicted mean
    C_nn            : jnp.ndarray, (M, M)
                    Predicted covariance
    """

    kernel_params, sigma = split_params(params)

    K_mn = kernel(x_train, x, kernel_params)
    mu = jnp.dot(c.T, K_mn).reshape(-1, 1) + y_mean

    if full_covariance:
        C_mm = kernel(x_train, x_train, kernel_params) + sigma**2 * jnp.eye(
            K_mn.shape[0]
        )
        L_m = jsp.linalg.cholesky(C_mm, lower=True)
        G_mn = jsp.linalg.solve_triangular(L_m, K_mn, lower=True)
        C_nn = kernel(x, x, kernel_params) - jnp.dot(G_mn.T, G_mn)
        return mu, C_nn

    return mu


# =============================================================================
# Standard Gaussian Process Regression: interface
# =============================================================================


class GaussianProcessRegression:
    def __init__(self, kernel, kernel_params, sigma):
        self.kernel = kernel
        self.kernel_params = tree_map(lambda p: jnp.array(p), kernel_params)
        self.sigma = jnp.array(sigma)

        self.constrain_parameters = constrain_parameters
        self.unconstrain_parameters = unconstrain_parameters

        self.params = {"sigma": self.sigma, "kernel_params": self.kernel_params}
        self.params_unconstrained = self.unconstrain_parameters(self.params)

    def log_marginal_likelihood(self, x, y, return_negative=False):
        return log_marginal_likelihood(
            self.params, x=x, y=y, kernel=self.kernel, return_negative=return_negative
        )

    def fit(self, x, y):
        x0, unravel_fn = ravel_pytree(self.params_unconstrained)

        def loss(xt):
            params = unravel_fn(xt)
            params = self.constrain_parameters(params)
            return log_marginal_likelihood(
                params, x=x, y=y, kernel=self.kernel, return_negative=True
            )

        grad_loss = jit(grad(loss))

        optres = minimize(loss, x0, method="L-BFGS-B", jac=grad_loss)

        self.params_unconstrained = unravel_fn(optres.x)
        self.params = self.constrain_parameters(self.params_unconstrained)

        self.optimize_results_ = optres

        self.c_, self.y_mean_ = fit(self.params, x=x, y=y, kernel=self.kernel)
        self.x_train = x

        return self

    def predict(self, x, full_covariance=False):
        if not hasattr(self, "c_"):
            # not trained, return prior values
            y_mean = jnp.zeros(x.shape)
            if full_covariance:
                cov = self.kernel(x, x, self.params["kernel_params"])
                cov = cov + self.params["sigma"] * jnp.eye(cov.shape[0])
                return y_mean, cov
            return y_mean

        return predict(
            self.params,
            x_train=self.x_train,
            x=x,
            c=self.c_,
            y_mean=self.y_mean_,
            kernel=self.kernel,
            full_covariance=full_covariance,
        )


# Alias
GPR = GaussianProcessRegression


# Export
__all__ = [
    "GaussianProcessRegression",
    "GPR",
]


if __name__ == "__main__":
    x = jnp.linspace(0.0, 3.0, 12).reshape(-1, 1)
    y = jnp.sin(x)
    model = GPR(squared_exponential_kernel, {"lengthscale": 1.0}, 0.1)
    before = float(model.log_marginal_likelihood(x, y))
    model.fit(x, y)
    after = float(model.log_marginal_likelihood(x, y))
    assert after >= before
    mu = model.predict(x)
    mu2, cov = model.predict(x, full_covariance=True)
    assert mu.shape == (12, 1) and cov.shape == (12, 12)
    assert jnp.allclose(mu, mu2)
    assert float(jnp.max(jnp.abs(mu - y))) < 0.2
