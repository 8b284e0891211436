# source: https://github.com/kokabsc/gwkokab/blob/d7774196e0c262b82c70f5b03b34e9f9fb1faf5b/src/gwkokab/models/_models.py
#   (Wysocki2019MassModel before kokabsc/gwkokab#276, "gh-275: Different PRNGKeys for
#   different random variates")
# observed on jax 0.10.2 CPU with numpyro 0.22.0: `sample` draws m1's uniform and m2's
#   uniform from the same `key`, so under jit (as numpyro's samplers call it) m2 is exactly
#   mmin + u * (m1 - mmin) for the very u that made m1: the two masses are not independent
#   draws. Kept: the class as in the file; added: the helpers it imports from
#   gwkokab.models.utils and .constraints (doubly_truncated_power_law_log_prob/_icdf without
#   their custom_jvp rules, the mass-sandwich constraint's __call__), the __main__ check.
# gap: other
from jax import lax, numpy as jnp, random as jrd
from jax.scipy.stats import uniform
from jaxtyping import Array
from numpyro.distributions import constraints, Distribution
from numpyro.distributions.constraints import Constraint
from numpyro.distributions.util import promote_shapes, validate_sample


def doubly_truncated_power_law_log_prob(x, alpha, low, high):
    neq_neg1_mask = jnp.not_equal(alpha, -1.0)
    neq_neg1_alpha = jnp.where(neq_neg1_mask, alpha, 0.0)

    def neq_neg1_fn():
        one_more_alpha = 1.0 + neq_neg1_alpha
        return jnp.log(
            jnp.power(x, neq_neg1_alpha)
            * (one_more_alpha)
            / (jnp.power(high, one_more_alpha) - jnp.power(low, one_more_alpha))
        )

    def eq_neg1_fn():
        return -jnp.log(x) - jnp.log(jnp.log(high) - jnp.log(low))

    return jnp.where(neq_neg1_mask, neq_neg1_fn(), eq_neg1_fn())


def doubly_truncated_power_law_icdf(q, alpha, low, high):
    neq_neg1_mask = jnp.not_equal(alpha, -1.0)
    neq_neg1_alpha = jnp.where(neq_neg1_mask, alpha, 0.0)

    def icdf_alpha_neq_neg1():
        one_more_alpha = 1.0 + neq_neg1_alpha
        low_pow_one_more_alpha = jnp.power(low, one_more_alpha)
        high_pow_one_more_alpha = jnp.power(high, one_more_alpha)
        return jnp.power(
            low_pow_one_more_alpha
            + q * (high_pow_one_more_alpha - low_pow_one_more_alpha),
            jnp.reciprocal(one_more_alpha),
        )

    def icdf_alpha_eq_neg1():
        return jnp.power(high / low, q) * low

    icdf_val = jnp.where(
        neq_neg1_mask,
        icdf_alpha_neq_neg1(),
        icdf_alpha_eq_neg1(),
    )
    return icdf_val


class _MassSandwichConstraint(Constraint):
    event_dim = 1

    def __init__(self, mmin: float, mmax: float):
        self.mmin = mmin
        self.mmax = mmax

    def __call__(self, x):
        m1 = x[..., 0]
        m2 = x[..., 1]
        mask = 0.0 < self.mmin
        mask &= self.mmin <= m2
        mask &= m2 <= m1
        mask &= m1 <= self.mmax
        return mask


mass_sandwich = _MassSandwichConstraint


class Wysocki2019MassModel(Distribution):
    r"""It is a double side truncated power law distribution, as described in
    equation 7 of the `Reconstructing phenomenological distributions of compact
    binaries via gravitational wave observations <https://arxiv.org/abs/1805.06442>`_.
    """

    arg_constraints = {
        "alpha_m": constraints.real,
        "mmin": constraints.positive,
        "mmax": constraints.positive,
    }
    reparametrized_params = ["alpha_m", "mmin", "mmax"]
    pytree_aux_fields = ("_support",)

    def __init__(self, alpha_m, mmin, mmax, *, validate_args=None) -> None:
        self.alpha_m, self.mmin, self.mmax = promote_shapes(alpha_m, mmin, mmax)
        batch_shape = lax.broadcast_shapes(
            jnp.shape(alpha_m),
            jnp.shape(mmin),
            jnp.shape(mmax),
        )
        self._support = mass_sandwich(mmin, mmax)
        super(Wysocki2019MassModel, self).__init__(
            batch_shape=batch_shape, event_shape=(2,), validate_args=validate_args
        )

    @constraints.dependent_property(is_discrete=False, event_dim=1)
    def support(self) -> constraints.Constraint:
        return self._support

    @validate_sample
    def log_prob(self, value):
        m1 = value[..., 0]
        m2 = value[..., 1]
        log_prob_m1 = doubly_truncated_power_law_log_prob(
            x=m1, alpha=jnp.negative(self.alpha_m), low=self.mmin, high=self.mmax
        )
        log_prob_m2_given_m1 = uniform.logpdf(
            m2, loc=self.mmin, scale=jnp.subtract(m1, self.mmin)
        )
        return jnp.add(log_prob_m1, log_prob_m2_given_m1)

    def sample(self, key, sample_shape=()) -> Array:
        u = jrd.uniform(key, shape=sample_shape)
        m1 = doubly_truncated_power_law_icdf(
            q=u, alpha=jnp.negative(self.alpha_m), low=self.mmin, high=self.mmax
        )
        m2 = jrd.uniform(key, shape=sample_shape, minval=self.mmin, maxval=m1)  # expect: JIT502
        return jnp.stack((m1, m2), axis=-1)


if __name__ == "__main__":
    import jax

    d = Wysocki2019MassModel(alpha_m=2.3, mmin=5.0, mmax=80.0)
    key = jrd.PRNGKey(0)
    x = jax.jit(lambda k: d.sample(k, (1000,)))(key)
    m1, m2 = x[..., 0], x[..., 1]
    assert jnp.all(jnp.isfinite(d.log_prob(x)))
    # observed: line 129 draws m2 from the key m1's uniform u was drawn from
    u = jrd.uniform(key, shape=(1000,))  # tolerate: JIT502
    assert jnp.allclose(m2, 5.0 + u * (m1 - 5.0), rtol=1e-5), (m1[:3], m2[:3], u[:3])
