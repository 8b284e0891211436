# source: https://github.com/bb515/diffusionjax/commit/038008b18efa1b58f119defe07a6aa2ddb263505
#   (EulerMaruyama as fixed by "minor bug fix so that randomnumbergenerator iterates as
#   expected": diffusionjax/samplers.py at that commit)
# observed on jax 0.10.2 CPU: the scan body of get_sampler splits the carried `rng` into
#   `rng, step_rng`, draws the step's noise with `step_rng` and carries `rng` on; sampling
#   runs eagerly and under jax.jit, both stacked and unstacked, and with
#   jax_debug_key_reuse and a typed key under jax.disable_jit no key is reused.
# gap: other
# added: SDE, OU and OU.reverse from diffusionjax/sde.py and batch_mul from
#   diffusionjax/utils.py of the same commit (docstrings shortened); get_sampler_enumerate,
#   an unfinished method nothing calls, left out; the score of a standard normal as the
#   score function; the __main__ block.
import abc

import jax
import jax.numpy as jnp
from jax import vmap
from jax.lax import scan
import jax.random as random


def batch_mul(a, b):
    return vmap(lambda a, b: a * b)(a, b)


class SDE(abc.ABC):
    """SDE abstract class. Functions are designed for a mini-batch of inputs."""

    def __init__(self, n_steps):
        super().__init__()
        self.n_steps = n_steps
        self.train_ts = jnp.linspace(0, 1, self.n_steps + 1)[:-1].reshape(-1, 1)

    @abc.abstractmethod
    def sde(self, x, t):
        """Return the drift and diffusion coefficients of the SDE."""

    @abc.abstractmethod
    def marginal_prob(self, x, t):
        """Parameters to determine the marginal distribution of the SDE."""

    def discretize(self, x, t):
        """Discretize the SDE in the form x_{i+1} = x_{i} + f_i(x_i) + G_i z_i."""
        dt = 1. / self.n_steps
        drift, diffusion = self.sde(x, t)
        f = drift * dt
        G = diffusion * jnp.sqrt(dt)
        return f, G


class OU(SDE):
    """Time rescaled Ohrnstein Uhlenbeck (OU) SDE."""
    def __init__(self, beta_min=0.001, beta_max=3, n_steps=1000):
        super().__init__(n_steps)
        self.beta_min = beta_min
        self.beta_max = beta_max

    def sde(self, x, t):
        beta_t = self.beta_min + t * (self.beta_max - self.beta_min)
        drift = -0.5 * batch_mul(beta_t, x)
        diffusion = jnp.sqrt(beta_t)
        return drift, diffusion

    def log_mean_coeff(self, t):
        return -0.5 * t * self.beta_min - 0.25 * t**2 * (self.beta_max - self.beta_min)

    def mean_coeff(self, t):
        return jnp.exp(self.log_mean_coeff(t))

    def variance(self, t):
        return 1.0 - jnp.exp(2 * self.log_mean_coeff(t))

    def marginal_prob(self, x, t):
        m = self.mean_coeff(t)
        try:
            mean = batch_mul(m, x)
        except:
            mean = m * x
        std = jnp.sqrt(self.variance(t))
        return mean, std

    def reverse(self, score_fn):
        """Create the reverse-time SDE/ODE"""
        train_ts = self.train_ts
        sde_fn = self.sde
        discretize_fn = self.discretize

        class RSDE(self.__class__):

            def __init__(self):
                self.train_ts = train_ts

            def sde(self, x, t):
                drift, diffusion = sde_fn(x, t)
                score = score_fn(x, t)
                drift = drift - diffusion**2 * score
                return drift, diffusion

            def discretize(self, x, t):
                """Discretize the reverse SDE (Euler-Maruyama)."""
                f, G = discretize_fn(x, t)
                rev_f = -f + batch_mul(G**2, score_fn(x, t))
                return rev_f, G

        return RSDE()


class EulerMaruyama():
    """Euler Maruyama numerical solver of an SDE.Functions are designed for a mini-batch of inputs."""

    def __init__(self, sde, score_fn):
        """Constructs an Euler Maruyama sampler.
        Args:
            sde: A valid SDE class.
            score_fn: A valid score function.
        """
        self.sde = sde
        # Compute the reverse sde
        self.rsde = sde.reverse(score_fn)
        self.score_fn = score_fn

    def get_update(self):
        discretize = self.rsde.discretize

        def update(rng, x, t):
            """
            Args:
                rng: A JAX random state.
                x: A JAX array representing the current state.
                t: A JAX array representing the current step.
            
            Returns:
                x: A JAX array of the next state:
                x_mean: A JAX array. The next state without random noise. Useful for denoising.
            """
            f, G = discretize(x, t)
            z = random.normal(rng, x.shape)
            x_mean = x + f
            x = x_mean + batch_mul(G, z)
            return x, x_mean
        return update

    def get_sampler(self, stack_samples=False):
        ts = self.sde.train_ts
        update = self.get_update()
        def sampler(rng, n_samples, shape):
            rng, step_rng = random.split(rng)
            n_samples_shape = (n_samples,) + shape
            x = random.normal(step_rng, n_samples_shape)
            def f(carry, t):
                rng, x, x_mean = carry
                vec_t = jnp.ones((n_samples, 1)) * (1 - t)
                rng, step_rng = random.split(rng)
                x, x_mean = update(step_rng, x, vec_t)
                if not stack_samples:
                    return (rng, x, x_mean), ()
                else:
                    return (rng, x, x_mean), x
            if not stack_samples:
                (_, x, _), _ = scan(f, (rng, x, x), ts)
                return x
            else:
                (_, _, _), xs = scan(f, (rng, x, x), ts)
                return xs
        return sampler


def standard_normal_score(x, t):
    # stand-in for the example's empirical or trained score: the score of N(0, I)
    return -x


if __name__ == "__main__":
    sde = OU(n_steps=5)
    sampler = EulerMaruyama(sde, standard_normal_score).get_sampler()
    samples = sampler(random.PRNGKey(0), 64, (2,))
    jit_samples = jax.jit(sampler, static_argnums=(1, 2))(random.PRNGKey(0), 64, (2,))
    assert samples.shape == (64, 2) and bool(jnp.all(jnp.isfinite(jit_samples)))
    stacked = EulerMaruyama(sde, standard_normal_score).get_sampler(stack_samples=True)
    xs = jax.jit(stacked, static_argnums=(1, 2))(random.PRNGKey(1), 64, (2,))
    assert xs.shape == (5, 64, 2)

    jax.config.update("jax_debug_key_reuse", True)
    with jax.disable_jit():
        sampler(random.key(0), 8, (2,))
