# source: https://github.com/QuantAMMProtocol/quantammsim/blob/15b5cfabf8d98ef3d11615c5ddb4822af596a89f/quantammsim/pools/G3M/balancer/balancer_reserves.py
# observed on jax 0.10.2 CPU: runs clean. The fix of commit 15b5cfa: static_argnums=(5,)
#   marks n static; jit maps the index to the name n, so the keyword n=n_assets bound by
#   jax.tree_util.Partial is a static Python int, while gamma = 1.0 - fees stays traced and
#   only feeds jnp.where (fees_are_being_charged = gamma != 1.0 is a traced bool, never
#   branched on in Python); lax.scan runs the body over four price rows. The module at that
#   commit, up to _jax_calc_balancer_reserves_with_fees_using_precalcs; of
#   optimal_n_pool_arb the precalc helpers are copied, parallelised_optimal_trade_sifter is
#   a small stand-in; the unused G3M_trades import is dropped; the __main__ block is added.
# gap: static-hashability
from functools import partial

# again, this only works on startup!
from jax import config

import jax.numpy as jnp

from jax import jit, vmap, devices
from jax.tree_util import Partial
from jax.lax import scan

from jax import default_backend


# --- stand-ins for quantammsim.pools.G3M.optimal_n_pool_arb: the two precalc helpers as
# that module defines them; the trade sifter reduced to the fee-scaled zero-fee trade ---
def precalc_shared_values_for_one_signature(sig, n):
    tokens_to_keep = sig != 0
    active_trade_direction = jnp.where(sig == 1, 1, 0)
    tokens_to_drop = jnp.invert(tokens_to_keep)
    leave_one_out_idx = jnp.arange(1, n) - jnp.tri(n, n - 1, k=-1, dtype=bool)
    return tokens_to_keep, active_trade_direction, tokens_to_drop, leave_one_out_idx


precalc_shared_values_for_all_signatures = vmap(
    precalc_shared_values_for_one_signature, in_axes=[0, None]
)


def precalc_components_of_optimal_trade_for_one_signature(
    initial_weights,
    local_prices,
    fee_gamma,
    tokens_to_drop,
    active_trade_direction,
    leave_one_out_idx,
):
    active_local_prices = local_prices
    partial_initial_weigts = jnp.where(tokens_to_drop, 0.0, initial_weights)
    active_initial_weights = initial_weights / partial_initial_weigts.sum()
    per_asset_ratio = (
        (active_initial_weights * (fee_gamma ** (active_trade_direction)))
        / (active_local_prices)
    ) ** (1.0 - active_initial_weights)
    all_other_assets_quantities = (
        (active_local_prices)
        / ((fee_gamma ** (active_trade_direction)) * active_initial_weights)
    ) ** (active_initial_weights)
    all_other_assets_quantities = jnp.where(
        tokens_to_drop, 1.0, all_other_assets_quantities
    )
    all_other_assets_ratio = jnp.prod(
        all_other_assets_quantities[leave_one_out_idx], axis=-1
    )
    return active_initial_weights, per_asset_ratio, all_other_assets_ratio


precalc_components_of_optimal_trade_across_signatures = vmap(
    precalc_components_of_optimal_trade_for_one_signature,
    in_axes=[None, None, None, 0, 0, 0],
)

precalc_components_of_optimal_trade_across_prices = vmap(
    precalc_components_of_optimal_trade_across_signatures,
    in_axes=[None, 0, None, None, None, None],
)


def parallelised_optimal_trade_sifter(
    initial_reserves,
    initial_weights,
    local_prices,
    active_initial_weights,
    active_trade_directions,
    per_asset_ratio,
    all_other_assets_ratio,
    tokens_to_drop,
    fee_gamma,
    n,
    slack=0,
):
    value = (initial_reserves * local_prices).sum()
    price_product = jnp.prod((local_prices / (value * initial_weights / initial_reserves)) ** initial_weights)
    zero_fee_reserves = initial_reserves * price_product / (local_prices / (value * initial_weights / initial_reserves))
    return fee_gamma * (zero_fee_reserves - initial_reserves)
# --- end of stand-ins ---


config.update("jax_enable_x64", True)

DEFAULT_BACKEND = default_backend()
CPU_DEVICE = devices("cpu")[0]
if DEFAULT_BACKEND != "cpu":
    GPU_DEVICE = devices("gpu")[0]
else:
    GPU_DEVICE = devices("cpu")[0]


@jit
def _jax_calc_balancer_reserve_ratio(prev_prices, weights, prices):
    """
    Calculate reserves ratio changes for a single timestep.

    This function computes the changes in reserves for an vanilla G3M automated market maker (AMM)
    pool, so constant weights. Prices change. It is optimized for GPU execution.

    Parameters
    ----------
    prev_prices : jnp.ndarray
        Array of previous asset prices.
    weights : jnp.ndarray
        Array of weights.
    prices : jnp.ndarray
        Array of current asset prices.

    Returns
    -------
    jnp.ndarray
        Array of reserves ratio changes.
    """

    # first we do the change in reserve that corresponds to
    # Weights Constant, Prices Change, appendix B1 of QuantAMM whitepaper
    # from the change in prices over the course of the block
    price_change_ratio = prices / prev_prices
    price_product_change_ratio = jnp.prod(price_change_ratio**weights)
    reserves_ratios_from_price_change = price_product_change_ratio / price_change_ratio
    return reserves_ratios_from_price_change


_jax_calc_balancer_reserve_ratios = jit(
    vmap(_jax_calc_balancer_reserve_ratio, in_axes=(0, None, 0))
)


@partial(jit, static_argnums=(5,))
def _jax_calc_balancer_reserves_with_fees_scan_function_using_precalcs(
    carry_list,
    prices_and_precalcs,
    weights,
    tokens_to_drop,
    active_trade_directions,
    n,
    gamma=0.997,
    arb_thresh=0.0,
    arb_fees=0.0,
):
    """
    Calculate changes in AMM reserves considering fees 
    and arbitrage opportunities using signature variations.

    This function extends the basic reserve calculation by incorporating transaction fees
    and potential arbitrage opportunities, following the methodology described in
    https://arxiv.org/abs/2402.06731. It tests different trade signature variations to determine
    optimal arbitrage trades.

    Note that this function is written to have maximum pre-calculation of values
    that are repeatedly re-used in the arbitrage calculations, which we denote 'precalcs'.

    Parameters
    ----------
    carry_list : list
        List containing the previous weights, prices, and reserves.
    weights_and_prices_and_precalcs : jnp.ndarray
        Array containing the current weights and prices.
    all_sig_variations : jnp.ndarray
        Array of all signature variations used for arbitrage calculations.
    n : int
        Number of tokens or assets.
    gamma : float, optional
        Discount factor for no-arbitrage bounds, by default 0.997.
    arb_thresh : float, optional
        Threshold for profitable arbitrage, by default 0.0.
    arb_fees : float, optional
        Fees associated with arbitrage, by default 0.0.

    Returns
    -------
    list
        Updated list containing the new weights, prices, and reserves.
    jnp.ndarray
        Array of reserves changes.
    """

    # carry_list[1] is previous reserves
    prev_reserves = carry_list[1]

    counter = carry_list[2]

    # prices_and_precalcs are the weights and prices, in that order
    # we have a lot of precalcs
    prices = prices_and_precalcs[0]
    active_initial_weights = prices_and_precalcs[1]
    per_asset_ratios = prices_and_precalcs[2]
    all_other_assets_ratios = prices_and_precalcs[3]

    fees_are_being_charged = gamma != 1.0

    current_value = (prev_reserves * prices).sum()
    quoted_prices = current_value * weights / prev_reserves

    price_change_ratio = prices / quoted_prices
    price_product_change_ratio = jnp.prod(price_change_ratio**weights)
    reserves_ratios_from_price_change = price_product_change_ratio / price_change_ratio

    post_price_reserves_zero_fees = prev_reserves * reserves_ratios_from_price_change

    optimal_arb_trade_zero_fees = post_price_reserves_zero_fees - prev_reserves

    optimal_arb_trade_fees = parallelised_optimal_trade_sifter(
        prev_reserves,
        weights,
        prices,
        active_initial_weights,
        active_trade_directions,
        per_asset_ratios,
        all_other_assets_ratios,
        tokens_to_drop,
        gamma,
        n,
        0,
    )

    optimal_arb_trade = jnp.where(
        fees_are_being_charged,
        optimal_arb_trade_fees,
        optimal_arb_trade_zero_fees,
    )
    post_price_reserves = prev_reserves + optimal_arb_trade

    # check if this is worth the cost to arbs
    # delta = post_price_reserves - prev_reserves
    # is this delta a good deal for the arb?
    profit_to_arb = -(optimal_arb_trade * prices).sum() - arb_thresh

    arb_external_rebalance_cost = (
        0.5 * arb_fees * (jnp.abs(optimal_arb_trade) * prices).sum()
    )

    arb_profitable = profit_to_arb >= arb_external_rebalance_cost

    # if arb trade IS profitable
    # then reserves is equal to post_price_reserves, otherwise equal to prev_reserves
    do_price_arb_trade = arb_profitable

    reserves = jnp.where(do_price_arb_trade, post_price_reserves, prev_reserves)

    counter += 1
    return [
        prices,
        reserves,
        counter,
    ], reserves


@jit
def _jax_calc_balancer_reserves_with_fees_using_precalcs(
    initial_reserves,
    weights,
    prices,
    fees=0.003,
    arb_thresh=0.0,
    arb_fees=0.0,
    all_sig_variations=None,
):
    """
    Calculate AMM reserves considering fees and arbitrage opportunities using signature variations,
    using the approach given in https://arxiv.org/abs/2402.06731, for Balancer pools, pools with
    constant weights.

    This function computes the changes in reserves for an automated market maker (AMM) model
    considering transaction fees and potential arbitrage opportunities.
    It uses a scan operation to apply these calculations over multiple timesteps.

    Parameters
    ----------
    initial_reserves : jnp.ndarray
        Initial reserves at the start of the calculation.
    weights : jnp.ndarray
        One-dimensional array of asset weights.
    prices : jnp.ndarray
        Two-dimensional array of asset prices over time.
    fees : float, optional
        Swap fee charged on transactions, by default 0.003.
    arb_thresh : float, optional
        Threshold for profitable arbitrage, by default 0.0.
    arb_fees : float, optional
        Fees associated with arbitrage, by default 0.0.
    all_sig_variations : jnp.ndarray, optional
        Array of all signature variations used for arbitrage calculations.

    Returns
    -------
    jnp.ndarray
        The reserves array, indicating the changes in reserves over time.
    """
    n_assets = weights.shape[0]

    # or first weight, we have initial reserves, weights and
    # prices, so the change is 1

    initial_prices = prices[0]

    gamma = 1.0 - fees

    # pre-calculate some values that are repeatedly used in optimal arb calculations

    _, active_trade_directions, tokens_to_drop, leave_one_out_idxs = (
        precalc_shared_values_for_all_signatures(all_sig_variations, n_assets)
    )

    # calculate values that can be done in parallel

    active_initial_weights, per_asset_ratios, all_other_assets_ratios = (
        precalc_components_of_optimal_trade_across_prices(
            weights,
            prices,
            gamma,
            tokens_to_drop,
            active_trade_directions,
            leave_one_out_idxs,
        )
    )

    scan_fn = Partial(
        _jax_calc_balancer_reserves_with_fees_scan_function_using_precalcs,
        weights=weights,
        gamma=gamma,
        arb_thresh=arb_thresh,
        arb_fees=arb_fees,
        n=n_assets,
        tokens_to_drop=tokens_to_drop,
        active_trade_directions=active_trade_directions,
    )

    carry_list_init = [
        initial_prices,
        initial_reserves,
        0,
    ]
    _, reserves = scan(
        scan_fn,
        carry_list_init,
        [
            prices,
            active_initial_weights,
            per_asset_ratios,
            all_other_assets_ratios,
        ],
    )

    return reserves


if __name__ == "__main__":
    from itertools import product

    n_assets = 2
    all_sig_variations = jnp.array(
        [s for s in product([-1, 0, 1], repeat=n_assets) if 1 in s and -1 in s]
    )
    prices = jnp.array([[1.0, 2.0], [1.1, 1.9], [1.2, 2.1], [1.15, 2.2]])
    weights = jnp.array([0.5, 0.5])
    initial_reserves = jnp.array([100.0, 50.0])
    reserves = _jax_calc_balancer_reserves_with_fees_using_precalcs(
        initial_reserves, weights, prices, fees=0.003, all_sig_variations=all_sig_variations
    )
    assert reserves.shape == (4, 2)
    assert bool(jnp.isfinite(reserves).all())
