# source: https://github.com/martiningram/jax_vs_numba_glicko/blob/f4ed3e94c2464765e64e757bf9e28f38582dcb4c/glicko_jax.py
#   (the Glicko code of jax-ml/jax#817, https://github.com/jax-ml/jax/issues/817: the
#   reporter's numba code with `import jax.numpy as np` and `@jit`; the __main__ block is
#   generate_random_observations and the benchmark loop of Benchmark.ipynb in the same repo,
#   with 20 iterations instead of 1000 and a NumPy check of the results added)
# observed on jax 0.10.2 CPU: runs correctly: calculate_mu_prime loops over len(s_jk), the
#   length of a Python list (a pytree of traced arrays), which is static; every new count of
#   opponents or shape of outcomes retraces (the slowness of the thread), but each result
#   matches the same code run with NumPy.
# gap: types
import jax.numpy as np
from jax import jit
from typing import List, Tuple


Q = np.log(10.) / 400.


@jit
def calculate_g(sigma_sq):
    """
    Calculates g as defined in the Glicko paper.
    """

    return 1. / np.sqrt(1 + (3 * Q**2 * sigma_sq / np.pi**2))


@jit
def calculate_e(theta: float, mu_j: np.ndarray,
                sigma_j_sq: np.ndarray) -> np.ndarray:
    """
    Calculates E, a quantity used in the Glicko approximations related to
    the win probability.

    Args:
        theta: The skill of player a.
        mu_j: The mean skill of each opponent j.
        sigma_j_sq: The variance of each opponent j's skill.

    Returns:
        E, as defined in the Glicko paper.
    """

    g = calculate_g(sigma_j_sq)

    return 1. / (1. + 10**(-g * (theta - mu_j) / 400.))


@jit
def calculate_delta_sq(n_j: np.ndarray, sigma_j_sq: np.ndarray, mu: float,
                       mu_j: np.ndarray) -> float:
    """
    Calculates the approximate variance of the likelihood.

    Args:
        n_j: The number of matches played against each opponent j.
        sigma_j_sq: The variance of each opponent j's skill.
        mu: The prior mean of the player.
        mu_j: The mean of each opponent j's skill.
    """

    win_exp = calculate_e(mu, mu_j, sigma_j_sq)
    win_exp_component = win_exp * (1 - win_exp)
    g = calculate_g(sigma_j_sq)
    sum_components = n_j * g**2 * win_exp_component
    summed = np.sum(sum_components)

    return 1. / (Q**2 * summed)


@jit
def calculate_single_mu_update(mu: float, opp_sigma_sq: float, s: np.ndarray,
                               opp_mu: float) -> float:
    """
    Helper function computing part of the update to mu for a single opponent.

    Args:
        mu: Player skill.
        opp_sigma_sq: Opponent skill variance.
        s: Outcomes against this opponent.
        opp_mu: Opponent skill mean.

    Returns:
        The summed quantity required for a mu update.
    """

    g = calculate_g(opp_sigma_sq)

    return np.sum(g * (s - calculate_e(mu, opp_mu, opp_sigma_sq)))


@jit
def calculate_mu_prime(mu: float, sigma_sq: float, delta_sq: float,
                       s_jk: List[np.ndarray], mu_j: np.ndarray,
                       sigma_j_sq: np.ndarray) -> float:
    """Calculates a player's posterior mean given outcomes.

    Args:
        mu: Prior mean skill of player to update.
        sigma_sq: Prior variance of player to update.
        delta_sq: The variance of the normal approximation to the likelihood.
        s_jk: The outcomes. This is a list whose j-th entry contains the
            outcomes against opponent j as a numpy array of ones and zeros.
        mu_j: Opponent mean skills.
        sigma_j_sq: Opponent skill variance.

    Returns:
        The updated mean.
    """

    pre_factor = Q / ((1. / sigma_sq) + (1. / delta_sq))

    total_update = 0.

    # This is the pesky dynamic for loop
    for j in range(len(s_jk)):

        cur_s = s_jk[j]
        cur_opp_sigma_sq = sigma_j_sq[j]
        cur_opp_mu = mu_j[j]

        total_update = total_update + calculate_single_mu_update(
            mu, cur_opp_sigma_sq, cur_s, cur_opp_mu)

    total_update = total_update * pre_factor

    return mu + total_update


@jit
def calculate_approximate_likelihood(mu: float, sigma_sq: float,
                                     n_j: np.ndarray, mu_j: np.ndarray,
                                     sigma_j_sq: np.ndarray,
                                     s_jk: List[np.ndarray]) \
        -> Tuple[float, float]:
    """
    Calculates the approximate likelihood used in Glicko for one player.

    Args:
        mu: The player's prior mean.
        sigma_sq: The player's prior variance.
        n_j: The number of games played against each opponent j.
        mu_j: The skill of each opponent j.
        sigma_j_sq: The variance of each opponent j's skill.
        s_jk: The outcomes against each opponent j.

    Returns:
        The mean and variance of the normal likelihood approximation, as a
        tuple.
    """

    delta_sq = calculate_delta_sq(n_j, sigma_j_sq, mu, mu_j)
    mu_prime = calculate_mu_prime(mu, sigma_sq, delta_sq, s_jk, mu_j,
                                  sigma_j_sq)

    gamma = sigma_sq / (sigma_sq + delta_sq)
    theta_hat = (1. / gamma) * (mu_prime - mu * (1 - gamma))

    return theta_hat, delta_sq


if __name__ == "__main__":
    import numpy

    def generate_random_observations():

        # Draw a random number of opponents
        num_opponents = numpy.random.randint(1, 5)

        # Draw a random number of matches played against each opponent
        n_j = numpy.array([numpy.random.randint(1, 5) for x in range(num_opponents)])

        # Draw random mean for each opponent
        mu_j = numpy.array([numpy.random.normal(loc=1500., scale=50) for x in range(num_opponents)])

        # Draw random variances for each opponent
        sigma_j_sq = numpy.array([numpy.random.normal(loc=20, scale=5)**2 for x in range(num_opponents)])

        # Draw random outcomes (win/loss) for each opponent
        s_jk = [numpy.random.randint(low=0, high=2, size=x) for x in n_j]

        return n_j, mu_j, sigma_j_sq, s_jk

    def reference(mu, sigma_sq, n_j, mu_j, sigma_j_sq, s_jk):
        q = numpy.log(10.) / 400.
        g = 1. / numpy.sqrt(1 + (3 * q**2 * sigma_j_sq / numpy.pi**2))
        e = 1. / (1. + 10**(-g * (mu - mu_j) / 400.))
        delta_sq = 1. / (q**2 * numpy.sum(n_j * g**2 * e * (1 - e)))
        pre_factor = q / ((1. / sigma_sq) + (1. / delta_sq))
        total = sum(numpy.sum(g[j] * (s_jk[j] - e[j])) for j in range(len(s_jk)))
        mu_prime = mu + total * pre_factor
        gamma = sigma_sq / (sigma_sq + delta_sq)
        return (1. / gamma) * (mu_prime - mu * (1 - gamma)), delta_sq

    numpy.random.seed(0)
    mu = numpy.array(1500.)
    sigma_sq = numpy.array(100.**2)

    for i in range(20):
        n_j, mu_j, sigma_j_sq, s_jk = generate_random_observations()
        theta_hat, delta_sq = calculate_approximate_likelihood(mu, sigma_sq, n_j, mu_j, sigma_j_sq, s_jk)
        want_theta, want_delta = reference(mu, sigma_sq, n_j, mu_j, sigma_j_sq, s_jk)
        assert numpy.allclose(float(theta_hat), want_theta, rtol=1e-3), (theta_hat, want_theta)
        assert numpy.allclose(float(delta_sq), want_delta, rtol=1e-3), (delta_sq, want_delta)
