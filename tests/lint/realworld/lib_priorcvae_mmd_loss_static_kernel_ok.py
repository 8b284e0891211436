# source: https://github.com/elizavetasemenova/PriorCVAE_JAX/blob/2db074ea6e297d521d90fb70952318a75994e14d/priorCVAE/losses/loss_units.py
#   (the PriorCVAE paper's loss functions; MMDAndKL in priorCVAE/losses/loss_classes.py calls
#   square_maximum_mean_discrepancy inside its jitted __call__ with the loss's kernel)
# observed on jax 0.10.2 CPU: runs clean: the kernel object and the efficient_grads/biased
#   flags are static arguments, so the Python branches on them and on the sample counts
#   taken from the shapes are decided at trace time; the asserts read shapes only. Kept:
#   loss_units.py as in the file, with sq_euclidean_dist of priorCVAE/utility.py and the
#   Kernel, SquaredExponential and Matern32 classes of priorCVAE/priors/kernels.py (one
#   module here instead of the package's imports); added: the __main__ block, which calls the
#   losses jitted and takes the MMD's gradient with respect to the decoder's samples, as
#   training does, with two SquaredExponential kernels (Matern32's sqrt of a squared distance
#   that rounds below zero gives nan on any inputs, jitted or not, so it is kept but not called).
# gap: static-hashability
import jax
import jax.numpy as jnp
from functools import partial
from abc import ABC, abstractmethod


def sq_euclidean_dist(x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
    """
    Calculate Squared Euclidean distance between the two vectors, x and y.

    d(x, y) = sqrt(x**2 + y**2.T - 2 * <x, transpose(y)>)

    The implementation uses the broadcasting functionality of jax.numpy for mulit-dimensionality calculation.

    :param x: Jax ndarray of the shape, (N_1, D).
    :param y: Jax ndarray of the shape, (N_2, D).

    :returns: the Euclidean distance value.
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
        """
        Calculates the kernel value for x1 and x2.

        :param x1: Jax ndarray of the shape `(N1, D)`.
        :param x2: Jax ndarray of the shape `(N2, D)`.

        :return: kernel matrix of the shape `(N1, N2)`.

        """
        x1 = self._handle_input_shape(x1)
        x2 = self._handle_input_shape(x2)
        assert x1.shape[-1] == x2.shape[-1]
        x1 = self._scale_by_lengthscale(x1)
        x2 = self._scale_by_lengthscale(x2)
        dist = sq_euclidean_dist(x1, x2)
        k = self.variance * jnp.exp(-0.5 * dist)
        assert k.shape == (x1.shape[0], x2.shape[0])
        return k


class Matern32(Kernel):
    """
    Matern 3/2 Kernel.

    K(x1, x2) = variance * (1 + √3 * ||x1 - x2|| / l**2) exp{-√3 * ||x1 - x2|| / l**2}

    """

    def __init__(self, lengthscale: float = 1.0, variance: float = 1.0):
        super().__init__(lengthscale, variance)

    def __call__(self, x1: jnp.ndarray, x2: jnp.ndarray) -> jnp.ndarray:
        """
        Calculates the kernel value for x1 and x2.

        :param x1: Jax ndarray of the shape `(N1, D)`.
        :param x2: Jax ndarray of the shape `(N2, D)`.

        :return: kernel matrix of the shape `(N1, N2)`.

        """
        x1 = self._handle_input_shape(x1)
        x2 = self._handle_input_shape(x2)
        assert x1.shape[-1] == x2.shape[-1]
        x1 = self._scale_by_lengthscale(x1)
        x2 = self._scale_by_lengthscale(x2)
        dist = jnp.sqrt(sq_euclidean_dist(x1, x2))
        sqrt3 = jnp.sqrt(3.0)
        k = self.variance * (1.0 + sqrt3 * dist) * jnp.exp(-sqrt3 * dist)
        assert k.shape == (x1.shape[0], x2.shape[0])
        return k




@jax.jit
def kl_divergence(mean: jnp.ndarray, logvar: jnp.ndarray) -> jnp.ndarray:
    """
    Kullback-Leibler divergence between the normal distribution given by the mean and logvar and the unit Gaussian
    distribution.
    https://en.wikipedia.org/wiki/Kullback%E2%80%93Leibler_divergence#Multivariate_normal_distributions

        KL[N(m, S) || N(0, I)] = -0.5 * (1 + log(diag(S)) - diag(S) - m^2)

    Detailed derivation can be found here: https://learnopencv.com/variational-autoencoder-in-tensorflow/

    :param mean: the mean of the Gaussian distribution with shape (N,).
    :param logvar: the log-variance of the Gaussian distribution with shape (N,) i.e. only diagonal values considered.

    :return: the KL divergence value.
    """
    return -0.5 * jnp.sum(1 + logvar - jnp.square(mean) - jnp.exp(logvar))


@jax.jit
def scaled_sum_squared_loss(y: jnp.ndarray, reconstructed_y: jnp.ndarray, vae_var: float = 1.) -> jnp.ndarray:
    """
    Scaled sum squared loss, i.e.

    L(y, y') = 0.5 * sum(((y - y')^2) / vae_var)

    Note: This loss can be considered as negative log-likelihood as:

    -1 * log N (y | y', sigma) \approx -0.5 ((y - y'/sigma)^2)

    :param y: the ground-truth value of y with shape (N, D).
    :param reconstructed_y: the reconstructed value of y with shape (N, D).
    :param vae_var: a float value representing the varianc of the VAE.

    :returns: the loss value
    """
    assert y.shape == reconstructed_y.shape
    return 0.5 * jnp.sum((reconstructed_y - y) ** 2 / vae_var)


@jax.jit
def mean_squared_loss(y: jnp.ndarray, reconstructed_y: jnp.ndarray) -> jnp.ndarray:
    """
    Mean squared loss, MSE i.e.

    L(y, y') = mean(((y - y')^2))

    :param y: the ground-truth value of y with shape (N, D).
    :param reconstructed_y: the reconstructed value of y with shape (N, D).

    :returns: the loss value
    """
    assert y.shape == reconstructed_y.shape
    return jnp.mean((reconstructed_y - y) ** 2)


@partial(jax.jit, static_argnames=['kernel', 'efficient_grads', 'biased'])
def square_maximum_mean_discrepancy(kernel: Kernel, target_samples: jnp.ndarray, prediction_samples: jnp.ndarray,
                                    efficient_grads: bool = False, biased: bool = False) -> jnp.ndarray:
    """
    Implementation of Empirical Maximum Mean Discrepancy (MMD).
    For details see lemma 6 of https://jmlr.csail.mit.edu/papers/volume13/gretton12a/gretton12a.pdf

    :param kernel: A kernel instance to be used for calculating MMD value
    :param target_samples: samples from the target distribution.
    :param prediction_samples: samples from the approximate distribution.
    :param efficient_grads: if True avoid calculating the K(x, x) as the grads through it will be zero.
    :param biased: If True, returns the biased estimate else the unbiased estimate is returned.

    :returns: MMD value.

    Note: As mentioned in Grettin et. al (2012), sqaured MMD can be negative because of the unbiased estimate.

    """
    assert len(target_samples.shape) == len(prediction_samples.shape) == 2
    assert target_samples.shape[-1] == prediction_samples.shape[-1]

    x_n = target_samples.shape[0]
    y_n = prediction_samples.shape[0]

    term_xx = 0
    if not efficient_grads:
        K_xx = kernel(target_samples, target_samples)
        if biased:
            term_xx = (1 / (x_n * x_n)) * jnp.sum(K_xx)
        else:
            term_xx = 1 / (x_n * (x_n - 1)) * (jnp.sum(K_xx) - jnp.trace(K_xx))

    K_yy = kernel(prediction_samples, prediction_samples)
    K_xy = kernel(target_samples, prediction_samples)

    if biased:
        term_yy = (1 / (y_n * y_n)) * jnp.sum(K_yy)
    else:
        term_yy = 1 / (y_n * (y_n - 1)) * (jnp.sum(K_yy) - jnp.trace(K_yy))

    term_xy = (2 / (x_n * y_n)) * jnp.sum(K_xy)

    mmd_val_square = term_xx + term_yy - term_xy
    return mmd_val_square


if __name__ == "__main__":
    key_t, key_p = jax.random.split(jax.random.PRNGKey(0))
    target = jax.random.normal(key_t, (50, 8))
    prediction = jax.random.normal(key_p, (40, 8)) + 0.5
    for kernel in (SquaredExponential(5.0, 1.0), SquaredExponential(2.0, 0.5)):
        for efficient_grads in (False, True):
            for biased in (False, True):
                v = square_maximum_mean_discrepancy(kernel, target, prediction,
                                                    efficient_grads=efficient_grads, biased=biased)
                assert v.shape == () and bool(jnp.isfinite(v))
        g = jax.grad(lambda p: square_maximum_mean_discrepancy(kernel, target, p, efficient_grads=True))(prediction)
        assert g.shape == prediction.shape
    assert kl_divergence(jnp.zeros(4), jnp.zeros(4)) == 0.
    assert scaled_sum_squared_loss(target, target, vae_var=0.5) == 0.
    assert mean_squared_loss(target, target + 1.) == 1.
