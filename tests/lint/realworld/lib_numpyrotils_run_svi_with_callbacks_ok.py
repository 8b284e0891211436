# source: https://github.com/Sibgatulin/numpyrotils/blob/e81f8676b2a5a016b75787dd7f54cab45534ff81/numpyrotils/prob.py
# observed on jax 0.10.2 CPU with numpyro 0.22.0: runs clean. `body_fn` is jitted once per
#   `run_with_callbacks` call (outside the step loop) and branches on the closed-over Python
#   bool `stable_update`; the NaN checks (`jnp.isfinite(loss) and ... .item()`) run on
#   concrete values in the driver loop. Kept: percentage_of_nans_in_tree, run_with_callbacks,
#   tree_is_finite, state_is_fully_finite as written (commit "separating out what can be
#   jitted"); the imports are trimmed to what they use; the model, guide, data and the
#   __main__ block are added.
# gap: exemption-vs-JAX
from collections.abc import Callable

import jax.numpy as jnp
from jax import jit, random, tree_util
from jaxtyping import Array, Bool
from numpyro.infer.svi import SVIRunResult
from tqdm import trange


def percentage_of_nans_in_tree(tree):
    """Used to calculate the percentage of NaN in the variational parameters.

    Helpful to identify the culprits when SVI stumbles over NaNs.
    """
    return tree_util.tree_map(lambda x: (jnp.isnan(x).mean() * 100).round(), tree)


def run_with_callbacks(
    svi,
    rng_key,
    num_steps,
    nan_policy="exit",
    callbacks: list[tuple[int, Callable]] = [],
    callback_teardown: list[Callable] = [],
    **kwargs,
) -> SVIRunResult:
    """
    Version of numpyro.infer.SVI.run with callbacks and NaN-handling.

    Specified callbacks are executed periodically in the optimisation loop.
    Callback teardown functions (if any) are called at the end of the loop.
    If any NaNs appear after a single update step, the loop can be stopped
    returning the latest all-finite state (missing in SVI.run).

    Parameters
    ----------
    nan_policy: 'exit', 'propagate', or 'stable_update'
        Learning rate that is too high can introduce NaNs in the course of optimisation.
        By default, numpyro.infer.run(stable_update=False) continues updating,
        effectively drowning everything in NaNs (nan_policy='propagate').
        Setting stable_update=True (nan_policy='stable_update') forces optimisation
        to keep the last non-NaN parameter value. This, while rescues the optimisation
        up to the gradient explosion, halts the subsequent course of optimisation,
        at least when constant learning rate is used, as in that case there is no hope
        to recover the gradient, wasting the rest of the calculation.
        So far I have no explicit* experience with decaying learning rate, thus the
        default NaN policy is to exit once a single NaN is found
        * except for whatever numpyro.optim.ClippedAdam is doing, which neither seems
        apparent for me from the documentation, nor seem to help to recover from NaNs
        in my experience)
    """
    print(f"Provided {len(callbacks)} callbacks and {len(callback_teardown)} teardowns")
    _losses = []

    state = svi.init(rng_key, **kwargs)

    stable_update = nan_policy == "stable_update"

    @jit  # this makes so much difference!
    def body_fn(state):
        if stable_update:  # inside or outside does not matter much
            return svi.stable_update(state, **kwargs)
        else:
            return svi.update(state, **kwargs)

    for i in trange(num_steps):
        _state, loss = body_fn(state)
        if (
            jnp.isfinite(loss)
            and state_is_fully_finite(svi, _state).item()
            or nan_policy == "propagate"
        ):
            state = _state
            _losses.append(loss)
        else:
            print(f"Loss became NaN at iter={i}. Proportion of NaNs found:")
            for k, v in svi.get_params(_state).items():
                print(f"{k}: {percentage_of_nans_in_tree(v)}%")
            print("Keeping the last iteration with finite loss")
            break

        for cb_period, cb in callbacks:
            if i % cb_period == 0:
                cb(svi, state, loss)

    for cb in callback_teardown:
        cb(svi, state)
    return SVIRunResult(svi.get_params(state), state, jnp.stack(_losses))


@jit
def tree_is_finite(tree):
    return tree_util.tree_reduce(
        lambda x, y: x * y,
        tree_util.tree_map(lambda x: jnp.isfinite(x).all(), tree),
    )


def state_is_fully_finite(svi, svi_state) -> Bool[Array, ""]:
    return tree_is_finite(svi.get_params(svi_state))


if __name__ == "__main__":
    import numpyro
    import numpyro.distributions as dist
    from numpyro.infer import SVI, Trace_ELBO
    from numpyro.infer.autoguide import AutoNormal

    def model(y=None):
        mu = numpyro.sample("mu", dist.Normal(0.0, 10.0))
        sigma = numpyro.sample("sigma", dist.HalfNormal(5.0))
        with numpyro.plate("data", y.shape[0]):
            numpyro.sample("y", dist.Normal(mu, sigma), obs=y)

    y = 3.0 + random.normal(random.PRNGKey(1), (200,))
    seen = []
    for policy in ("exit", "stable_update"):
        svi = SVI(model, AutoNormal(model), numpyro.optim.Adam(0.05), Trace_ELBO())
        result = run_with_callbacks(
            svi, random.PRNGKey(0), 300, nan_policy=policy,
            callbacks=[(100, lambda svi, state, loss: seen.append(float(loss)))],
            y=y,
        )
        assert result.losses.shape == (300,)
        assert abs(float(result.params["mu_auto_loc"]) - 3.0) < 0.3, result.params
    assert len(seen) == 6
