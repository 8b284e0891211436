# source: https://github.com/mlysy/pfjax/issues/3 (mwg_adapt in src/pfjax/mcmc.py at
#   fff2a24e91f8de0350bf05bcaaaa2f4452f34452, lines 203-207 quoted in the report)
# observed on jax 0.10.2 CPU: under jax.jit, `(not delta)` raises TracerBoolConversionError:
#   `not` asks for the truth value of the traced step size. The jitted call with a small
#   vector of jump sizes is added.
# gap: other
import jax
import jax.numpy as jnp


def mwg_adapt(rw_sd, accept_rate, n_iter,
              adapt_max=.01, adapt_rate=.5):
    """
    Adapt random walk jump sizes of MWG proposals.

    Given a vector of random walk jump sizes, increase or decrease each of them depending on whether the cumulative acceptance rate is above or below 0.44.  The amount of change on log-scale is 

    ```
    delta = min(adapt_max, 1/n_iter^adapt_rate)
    ```

    Args:
        rw_sd: Vector of `n_params` standard deviations (jump sizes) for the componentwise random walk proposal.
        accept_rate: Vector of `n_params` cumulative acceptance rates (i.e., between 0 and 1).
        n_iter: Number of MCMC iterations so far.
        adapt_max: Scalar or vector of `n_params` maximum adaptation amounts.
        adapt_rate: Scalar or vector of `n_params` adaptation rates.

    Returns:
        Vector of `n_params` adapted standard deviations.
    """

    targ_acc = 0.44  # target acceptance rate
    delta = jnp.power(n_iter, -adapt_rate)
    delta = jnp.maximum(delta, adapt_max)
    low_acc = jnp.less(accept_rate, targ_acc)
    return jnp.exp(jnp.log(rw_sd) - delta * low_acc + (not delta) * low_acc)  # expect: JIT103


if __name__ == "__main__":
    rw_sd = jnp.array([0.1, 0.2, 0.5])
    accept_rate = jnp.array([0.3, 0.5, 0.44])
    jax.jit(mwg_adapt)(rw_sd, accept_rate, 100)
