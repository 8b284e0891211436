# source: https://github.com/elizavetasemenova/PriorCVAE_JAX/blob/2db074ea6e297d521d90fb70952318a75994e14d/priorCVAE/priors/GP.py
#   (the PriorCVAE paper's package; GP is the numpyro prior that priorCVAE/datasets/gp_dataset.py
#   draws training data from with Predictive, as examples/GP-PriorCVAE.ipynb does)
# observed on jax 0.10.2 CPU: with sample_lengthscale=True the model stores the sampled
#   lengthscale on the kernel object it was given: Predictive traces the model (soft_vmap: lax.map),
#   so kernel.lengthscale is left holding a tracer of that trace after simulatedata returns.
#   The notebook's `kernel` (the one handed to GPDataset) is then unusable outside the model:
#   calling it raises UnexpectedTracerError. Kept: GP as in the file, the Kernel base class
#   and SquaredExponential of priorCVAE/priors/kernels.py, sq_euclidean_dist of
#   priorCVAE/utility.py and GPDataset of priorCVAE/datasets/gp_dataset.py, as in the files
#   (one module here instead of the package's imports; the docstrings of sq_euclidean_dist,
#   SquaredExponential.__call__ and GPDataset shortened); left out: the other kernels;
#   added: the __main__ block (the notebook's cells 6 and 7 with 100 draws instead of 1000,
#   then the check of the kernel).
# gap: stale-state-attributes
from abc import ABC, abstractmethod
import random as rnd

import jax
import jax.numpy as jnp
from jax import random
import numpyro
import numpyro.distributions as npdist
from numpyro.infer import Predictive


def sq_euclidean_dist(x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
    """
    Calculate Squared Euclidean distance between the two vectors, x and y.
    """
    assert isinstance(x, jnp.ndarray) and isinstance(y, jnp.ndarray)
    if len(x.shape) == 1:
        x = x.reshape(x.shape[0], 1)
    if len(y.shape) == 1:
        y = y.reshape(y.shape[0], 1)

    assert x.shape[-1] == y.shape[-1]

    dist = jnp.sum(jnp.square(x), axis=-1)[..., None] + jnp.sum(jnp.square(y), axis=-1)[..., None].T - 2 * jnp.dot(x,
                                                                                                                   y.T)
    return dist


class Kernel(ABC):
    """
    Abstract class for the kernels.
    """
    def __init__(self, lengthscale: float = 1.0, variance: float = 1.0):
        self.lengthscale = lengthscale
        self.variance = variance

    @abstractmethod
    def __call__(self, x1, x2):
        pass

    def _handle_input_shape(self, x: jnp.ndarray) -> jnp.ndarray:
        """
        The function checks if the input is in the shape (N, D). If (N, ) then a dimension is added in the end.
        Otherwise, Exception is raised.
        """
        if len(x.shape) == 1:
            x = x[..., None]
        if len(x.shape) > 2:
            raise Exception("Kernel only supports calculations with the input of shape (N, D).")
        return x

    def _scale_by_lengthscale(self, x: jnp.ndarray) -> jnp.ndarray:
        """
        Scale the input tensor by 1/lengthscale.
        """
        return x / self.lengthscale


class SquaredExponential(Kernel):
    """
    Squared exponential kernel.
    K(x1, x2) = var * exp(-0.5 * ||x1 - x2||^2/l**2)
    """
    def __init__(self, lengthscale: float = 1.0, variance: float = 1.0):
        super().__init__(lengthscale, variance)

    def __call__(self, x1: jnp.ndarray, x2: jnp.ndarray) -> jnp.ndarray:
        x1 = self._handle_input_shape(x1)
        x2 = self._handle_input_shape(x2)
        assert x1.shape[-1] == x2.shape[-1]
        x1 = self._scale_by_lengthscale(x1)
        x2 = self._scale_by_lengthscale(x2)
        dist = sq_euclidean_dist(x1, x2)
        k = self.variance * jnp.exp(-0.5 * dist)
        assert k.shape == (x1.shape[0], x2.shape[0])
        return k


def GP(x: jnp.ndarray, kernel: Kernel = SquaredExponential(), jitter: float = 1e-5, y=None, noise: bool = False,
       sample_lengthscale: bool = False):
    """
    Gaussian process numpyro primitive to generate samples from it.

    :param x: Jax ndarray of the shape (N, D)
    :param kernel: Gaussian process kernel, object of the class priorCVAE.priors.Kernel
    :param jitter: Float value added to the kernel matrix.
    :param y: observations.
    :param noise: if True, add noise to the sample. The noise is drawn from the half-normal distribution with
                  variance of 0.1.
    :param sample_lengthscale: if True, sample lenthscale from a Uniform distribution, U(0.01, 0.99).

    """

    if sample_lengthscale:
        kernel.lengthscale = numpyro.sample("lengthscale", npdist.Uniform(0.01, 0.99))  # expect: JIT202

    k = kernel(x, x)
    k += jitter * jnp.eye(x.shape[0])

    if noise is False:
        f = numpyro.sample("y", npdist.MultivariateNormal(loc=jnp.zeros(x.shape[0]), covariance_matrix=k), obs=y)
    else:
        sigma = numpyro.sample("noise", npdist.HalfNormal(0.1))
        f = numpyro.sample("f", npdist.MultivariateNormal(loc=jnp.zeros(x.shape[0]), covariance_matrix=k))
        y = numpyro.sample("y", npdist.Normal(f, sigma), obs=y)

    ls = numpyro.deterministic("ls", jnp.array([kernel.lengthscale]))


class GPDataset:
    """
    Generate GP draws over the regular grid in the interval (x_lim_low, x_lim_high) with n_dataPoints points.
    """

    def __init__(self, kernel: Kernel, n_data: int = 400, x_lim_low: int = 0,
                 x_lim_high: int = 1, sample_lengthscale: bool = False):
        self.n_data = n_data
        self.x_lim_low = x_lim_low
        self.x_lim_high = x_lim_high
        self.sample_lengthscale = sample_lengthscale
        self.kernel = kernel
        self.x = jnp.linspace(self.x_lim_low, self.x_lim_high, self.n_data)

    def simulatedata(self, n_samples: int = 10000) -> [jnp.ndarray, jnp.ndarray, jnp.ndarray]:
        rng_key, _ = random.split(random.PRNGKey(rnd.randint(0, 9999)))

        gp_predictive = Predictive(GP, num_samples=n_samples)
        all_draws = gp_predictive(rng_key, x=self.x, kernel=self.kernel, jitter=1e-5,
                                  sample_lengthscale=self.sample_lengthscale)

        ls_draws = jnp.array(all_draws['ls'])
        gp_draws = jnp.array(all_draws['y'])

        return self.x.repeat(n_samples).reshape(self.x.shape[0], n_samples).transpose(), gp_draws, ls_draws


if __name__ == "__main__":
    kernel = SquaredExponential()
    gp_data_generator = GPDataset(n_data=80, kernel=kernel, sample_lengthscale=True)
    sample_x_train, sample_y_train, sample_ls_train = gp_data_generator.simulatedata(n_samples=100)
    assert sample_y_train.shape == (100, 80) and sample_ls_train.shape == (100, 1)

    # observed: line 110 leaves a tracer of Predictive's trace in kernel.lengthscale
    assert isinstance(kernel.lengthscale, jax.core.Tracer)
    try:
        kernel(sample_x_train[0], sample_x_train[0])
    except jax.errors.UnexpectedTracerError:
        pass
    else:
        raise AssertionError("the leaked lengthscale did not raise")
