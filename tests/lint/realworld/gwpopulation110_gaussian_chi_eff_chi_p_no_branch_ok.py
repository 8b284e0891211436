# source: https://github.com/ColmTalbot/gwpopulation/pull/110 (GaussianChiEffChiP.__call__ after
#   the fix, https://github.com/ColmTalbot/gwpopulation/blob/0c2611238ba956e40a01213133f2f70210ac0023/gwpopulation/models/spin.py,
#   and unnormalized_2d_gaussian from utils.py; docstrings are left out; gwpopulation's
#   backend switch is written as `import jax.numpy as xp`, `xp.trapz` as `xp.trapezoid`; the
#   jitted `ln_prob` and the data set stand in for a likelihood evaluated under jax.jit)
# observed on jax 0.10.2 CPU: runs clean under jit: the `if spin_covariance == 0:` branch is
#   gone, and both covariances go through the normalised 2D Gaussian.
# gap: types
import jax
import jax.numpy as jnp
import jax.numpy as xp


def unnormalized_2d_gaussian(xx, yy, mu_x, mu_y, sigma_x, sigma_y, covariance):
    determinant = sigma_x**2 * sigma_y**2 * (1 - covariance)
    residual_x = (mu_x - xx) * sigma_y
    residual_y = (mu_y - yy) * sigma_x
    prob = xp.exp(
        -(residual_x**2 + residual_y**2 - 2 * residual_x * residual_y * covariance)
        / 2
        / determinant
    )
    return prob


class GaussianChiEffChiP(object):

    def __init__(self):
        self.chi_eff = xp.linspace(-1, 1, 500)
        self.chi_p = xp.linspace(0, 1, 250)
        self.chi_eff_grid, self.chi_p_grid = xp.meshgrid(self.chi_eff, self.chi_p)

    def __call__(
        self, dataset, mu_chi_eff, sigma_chi_eff, mu_chi_p, sigma_chi_p, spin_covariance
    ):

        prob = unnormalized_2d_gaussian(
            dataset["chi_eff"],
            dataset["chi_p"],
            mu_chi_eff,
            mu_chi_p,
            sigma_chi_eff,
            sigma_chi_p,
            spin_covariance,
        )
        normalization = self._normalization(
            mu_chi_eff=mu_chi_eff,
            sigma_chi_eff=sigma_chi_eff,
            mu_chi_p=mu_chi_p,
            sigma_chi_p=sigma_chi_p,
            spin_covariance=spin_covariance,
        )
        prob /= normalization
        prob *= xp.abs(dataset["chi_eff"]) <= 1
        prob *= (dataset["chi_p"] <= 1) * (dataset["chi_p"] >= 0)
        return prob

    def _normalization(
        self, mu_chi_eff, sigma_chi_eff, mu_chi_p, sigma_chi_p, spin_covariance
    ):
        prob = unnormalized_2d_gaussian(
            self.chi_eff_grid,
            self.chi_p_grid,
            mu_chi_eff,
            mu_chi_p,
            sigma_chi_eff,
            sigma_chi_p,
            spin_covariance,
        )
        return xp.trapezoid(
            y=xp.trapezoid(y=prob, axis=-1, x=self.chi_eff), axis=-1, x=self.chi_p
        )


model = GaussianChiEffChiP()
dataset = {"chi_eff": xp.linspace(-0.5, 0.5, 20), "chi_p": xp.linspace(0.1, 0.9, 20)}


@jax.jit
def ln_prob(parameters):
    return xp.sum(xp.log(model(dataset, **parameters)))


if __name__ == "__main__":
    for rho in (0.0, 0.5):
        value = ln_prob(dict(mu_chi_eff=0.0, sigma_chi_eff=0.1, mu_chi_p=0.2, sigma_chi_p=0.1,
                             spin_covariance=rho))
        assert jnp.isfinite(value), value
