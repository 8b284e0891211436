# source: https://github.com/QuantAMMProtocol/quantammsim/blob/abd66084cceb6f28b4308d81c148aeee5d3cc6e6/quantammsim/core_simulator/forward_pass.py
# observed on jax 0.10.2 CPU: runs clean. The fix of commit abd6608: _daily_log_sharpe
#   samples the traced series with the static stride slice values[::1440] and takes
#   jnp.diff of its log, so no shape depends on a traced value; _calculate_return_value
#   (jitted, return_val static) builds its dict of metric lambdas and calls only the one
#   named, branching in Python on the static return_val. The module at that commit, up to
#   _calculate_return_value (forward_pass and below dropped); the __main__ block is added.
# gap: omnistaging
from jax import config

config.update("jax_enable_x64", True)
from jax import default_backend
from jax import devices

DEFAULT_BACKEND = default_backend()
CPU_DEVICE = devices("cpu")[0]
if DEFAULT_BACKEND != "cpu":
    GPU_DEVICE = devices("gpu")[0]
    config.update("jax_platform_name", "gpu")
else:
    GPU_DEVICE = devices("cpu")[0]
    config.update("jax_platform_name", "cpu")


import jax.numpy as jnp
from jax import jit, vmap, devices
from jax.lax import stop_gradient, dynamic_slice, associative_scan


import numpy as np

from functools import partial

np.seterr(all="raise")
np.seterr(under="print")


def _daily_log_sharpe(values: jnp.ndarray) -> jnp.ndarray:
    """
    Daily Sharpe on log close-to-close returns.
    Uses 1 day = 1440 minutes; annualizes with sqrt(365).
    """
    # Sample daily values using stride slice
    daily_values = values[::1440]
    
    # Calculate daily log returns
    log_rets = jnp.diff(jnp.log(daily_values + 1e-12))

    mean = log_rets.mean()
    std  = log_rets.std()

    # Annualize daily stats (calendar days)
    return jnp.sqrt(365.0) * (mean / (std + 1e-8))

def _calculate_max_drawdown(value_over_time, duration=7 * 24 * 60):
    """Calculate maximum drawdown on a chosen basis."""
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    values = value_over_time_truncated.reshape(-1, duration)
    running_max = vmap(lambda x: associative_scan(jnp.maximum, x))(values)
    drawdowns = (values - running_max) / running_max
    max_drawdowns = jnp.min(drawdowns, axis=1)
    return jnp.min(max_drawdowns)


def _calculate_var(value_over_time, percentile=5.0, duration=24 * 60):
    """Calculate VaR using intraday returns."""
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    values = value_over_time_truncated.reshape(-1, duration)
    returns = jnp.diff(values, axis=-1) / values[:, :-1]
    var = vmap(lambda x: jnp.percentile(x, percentile))(returns)
    return jnp.mean(var)


def _calculate_var_trad(value_over_time, percentile=5.0, duration=24 * 60):
    """Calculate traditional VaR using daily returns."""
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    value_over_time = value_over_time_truncated.reshape(-1, duration)[:, -1]
    returns = jnp.diff(value_over_time) / value_over_time[:-1]
    return jnp.percentile(returns, percentile)


def _calculate_raroc(value_over_time, percentile=5.0, duration=24 * 60):
    # Calculate returns
    total_return = value_over_time[-1] / value_over_time[0] - 1.0

    # Drop any incomplete chunks at the end by truncating to multiple of duration
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    value_over_time_chunks = value_over_time_truncated.reshape(-1, duration)
    # Calculate VaR (using our intraday method)
    returns = jnp.diff(value_over_time_chunks) / value_over_time_chunks[:, :-1]
    var = vmap(lambda x: jnp.percentile(x, percentile))(returns)
    var = jnp.mean(var)  # This is already negative

    # Calculate annualized RAROC
    days_in_sample = len(value_over_time) / (24 * 60)
    annualization_factor = 365 / days_in_sample

    annualized_return = (1 + total_return) ** annualization_factor - 1
    annualized_var = var * jnp.sqrt(annualization_factor * 24 * 60 / duration)

    # RAROC = Annualized Return / VaR (VaR is already negative)
    return -annualized_return / annualized_var


def _calculate_rovar(value_over_time, percentile=5.0, duration=24 * 60):
    # Drop any incomplete chunks at the end by truncating to multiple of duration
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    value_over_time_chunks = value_over_time_truncated.reshape(-1, duration)

    # Calculate returns per 'duration'
    period_returns = value_over_time_chunks[:, -1] / value_over_time_chunks[:, 0] - 1.0
    # Calculate VaR (using our intraday method)
    returns = jnp.diff(value_over_time_chunks) / value_over_time_chunks[:, :-1]
    var = vmap(lambda x: jnp.percentile(x, percentile))(returns)
    mean_var = jnp.mean(var)
    # Calculate annualized rovar
    days_in_sample = len(value_over_time) / (24 * 60)
    annualization_factor = 365 / days_in_sample

    annualized_return = (1 + period_returns) ** ((365 * 24 * 60) / duration) - 1
    mean_annualized_return = jnp.mean(annualized_return)
    annualized_var = mean_var * jnp.sqrt(annualization_factor * 24 * 60 / duration)

    # ROVAR = mean of: annualized Return per chunk / VaR (VaR is already negative) per chunk
    return -mean_annualized_return / annualized_var


def _calculate_rovar_trad(value_over_time, percentile=5.0, duration=24 * 60):
    # Drop any incomplete chunks at the end by truncating to multiple of duration
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    value_over_time_chunks = value_over_time_truncated.reshape(-1, duration)

    # Calculate returns per 'duration' using end-of-period values
    period_returns = value_over_time_chunks[:, -1] / value_over_time_chunks[:, 0] - 1.0

    # Calculate VaR using traditional method (end-of-period returns)
    end_of_period_values = value_over_time_chunks[:, -1]
    var_returns = jnp.diff(end_of_period_values) / end_of_period_values[:-1]
    var = jnp.percentile(var_returns, percentile)

    # Calculate annualized rovar
    days_in_sample = len(value_over_time) / (24 * 60)
    annualization_factor = 365 / days_in_sample

    annualized_return = (1 + period_returns) ** ((365 * 24 * 60) / duration) - 1
    mean_annualized_return = jnp.mean(annualized_return)
    annualized_var = var * jnp.sqrt(annualization_factor * 24 * 60 / duration)

    # ROVAR = mean of annualized returns / VaR (VaR is already negative)
    return -mean_annualized_return / annualized_var


def _calculate_sterling_ratio(
    value_over_time, duration=24 * 60, drawdown_adjustment=None
):
    """
    Calculate the Sterling ratio using JAX for a given value over time series.

    Parameters
    ----------
    value_over_time : jnp.ndarray
        Array of portfolio values over time
    duration : int
        Duration in minutes to calculate returns over
    drawdown_adjustment : float, optional
        Adjustment to add to average drawdown (e.g., 0.1 for traditional 10% adjustment).
        If None, no adjustment is applied.

    Returns
    -------
    float
        Sterling ratio (annualized)
    """
    # Handle incomplete chunks
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    values = value_over_time_truncated.reshape(-1, duration)

    # Calculate running max using associative_scan for efficiency
    running_max = vmap(lambda x: associative_scan(jnp.maximum, x))(values)

    # Calculate drawdowns per chunk
    drawdowns = (values - running_max) / running_max
    chunk_max_drawdowns = jnp.min(drawdowns, axis=1)

    # Calculate average of annual maximum drawdowns
    avg_drawdown = jnp.mean(chunk_max_drawdowns)

    # Calculate annualized return
    days_in_sample = len(value_over_time) / (24 * 60)
    annualization_factor = 365 / days_in_sample

    total_return = value_over_time[-1] / value_over_time[0] - 1.0
    annualized_return = (1 + total_return) ** annualization_factor - 1

    # Apply drawdown adjustment if specified
    if drawdown_adjustment is not None:
        denominator = -(avg_drawdown + drawdown_adjustment)
    else:
        denominator = -avg_drawdown

    # Handle zero/positive drawdown case
    sterling = jnp.where(denominator >= 0, jnp.inf, annualized_return / denominator)

    return sterling


def _calculate_calmar_ratio(value_over_time, duration=None):
    """
    Calculate the Calmar ratio using JAX for a given value over time series.

    Parameters
    ----------
    value_over_time : jnp.ndarray
        Array of portfolio values over time
    duration : int
        Maximum lookback period in minutes (default is 36 months)
        Only used to truncate the data if needed

    Returns
    -------
    float
        Calmar ratio (annualized)
    """
    # Truncate to maximum lookback period if needed
    if duration is not None and len(value_over_time) > duration:
        value_over_time = value_over_time[-duration:]

    # Calculate running max for entire series
    running_max = associative_scan(jnp.maximum, value_over_time)

    # Calculate drawdowns and find maximum drawdown
    drawdowns = (value_over_time - running_max) / running_max
    max_drawdown = jnp.min(drawdowns)

    # Calculate annualized return
    days_in_sample = len(value_over_time) / (24 * 60)
    annualization_factor = 365 / days_in_sample

    total_return = value_over_time[-1] / value_over_time[0] - 1.0
    annualized_return = (1 + total_return) ** annualization_factor - 1

    # Handle zero/positive drawdown case
    calmar = jnp.where(max_drawdown >= 0, jnp.inf, annualized_return / -max_drawdown)

    return calmar


def _calculate_ulcer_index(value_over_time, duration=7 * 24 * 60):
    """Calculate Ulcer Index on a chosen basis.

    The Ulcer Index measures downside risk considering both depth and duration of drawdowns.
    """
    n_complete_chunks = (len(value_over_time) // duration) * duration
    value_over_time_truncated = value_over_time[:n_complete_chunks]
    values = value_over_time_truncated.reshape(-1, duration)
    running_max = vmap(lambda x: associative_scan(jnp.maximum, x))(values)
    drawdowns = (values - running_max) / running_max
    squared_drawdowns = jnp.square(drawdowns)
    ulcer_indices = jnp.sqrt(jnp.mean(squared_drawdowns, axis=1))
    return -jnp.mean(ulcer_indices)


@partial(jit, static_argnums=(0,))
def _calculate_return_value(
    return_val, reserves, local_prices, value_over_time, initial_reserves=None
):
    """Helper function to calculate different return metrics based on the specified return_val."""

    if return_val == "reserves":
        return {"reserves": reserves}

    pool_returns = None
    if return_val in ["sharpe", "returns", "returns_over_hodl"]:
        pool_returns = jnp.diff(value_over_time) / value_over_time[:-1]
    if return_val == "daily_sharpe":
        daily_returns = (
            jnp.diff(value_over_time[::24 * 60])
            / value_over_time[::24 * 60][:-1]
        )
    return_metrics = {
        # "sharpe": lambda: jnp.sqrt(365 * 24 * 60)
        # * (
        #     (pool_returns - ((1.05 ** (1.0 / (60 * 24 * 365)) - 1) + 1) - 1.0).mean()
        #     / pool_returns.std()
        # ),
        "sharpe": lambda: jnp.sqrt(365 * 24 * 60)
        * ((pool_returns).mean() / pool_returns.std()),
        "daily_sharpe": lambda: jnp.sqrt(365)
        * (daily_returns.mean() / daily_returns.std()),
        "daily_log_sharpe": lambda: _daily_log_sharpe(value_over_time),
        "returns": lambda: value_over_time[-1] / value_over_time[0] - 1.0,
        "returns_over_hodl": lambda: (
            value_over_time[-1]
            / (stop_gradient(initial_reserves) * local_prices[-1]).sum()
            - 1.0
        ),
        "greatest_draw_down": lambda: jnp.min(value_over_time - value_over_time[0])
        / value_over_time[0],
        "value": lambda: value_over_time,
        "weekly_max_drawdown": lambda: _calculate_max_drawdown(
            value_over_time, duration=7 * 24 * 60
        ),
        "daily_var_95%": lambda: _calculate_var(
            value_over_time, percentile=5.0, duration=24 * 60
        ),
        "daily_var_95%_trad": lambda: _calculate_var_trad(
            value_over_time, percentile=5.0, duration=24 * 60
        ),
        "weekly_var_95%": lambda: _calculate_var(
            value_over_time, percentile=5.0, duration=7 * 24 * 60
        ),
        "weekly_var_95%_trad": lambda: _calculate_var_trad(
            value_over_time, percentile=5.0, duration=7 * 24 * 60
        ),
        "daily_var_99%": lambda: _calculate_var(
            value_over_time, percentile=1.0, duration=24 * 60
        ),
        "daily_var_99%_trad": lambda: _calculate_var_trad(
            value_over_time, percentile=1.0, duration=24 * 60
        ),
        "weekly_var_99%": lambda: _calculate_var(
            value_over_time, percentile=1.0, duration=7 * 24 * 60
        ),
        "weekly_var_99%_trad": lambda: _calculate_var_trad(
            value_over_time, percentile=1.0, duration=7 * 24 * 60
        ),
        "daily_raroc": lambda: _calculate_raroc(
            value_over_time, percentile=5.0, duration=24 * 60
        ),
        "weekly_raroc": lambda: _calculate_raroc(
            value_over_time, percentile=5.0, duration=7 * 24 * 60
        ),
        "daily_rovar": lambda: _calculate_rovar(
            value_over_time, percentile=5.0, duration=24 * 60
        ),
        "weekly_rovar": lambda: _calculate_rovar(
            value_over_time, percentile=5.0, duration=7 * 24 * 60
        ),
        "monthly_rovar": lambda: _calculate_rovar(
            value_over_time, percentile=5.0, duration=30 * 24 * 60
        ),
        "daily_rovar_trad": lambda: _calculate_rovar_trad(
            value_over_time, percentile=5.0, duration=24 * 60
        ),
        "weekly_rovar_trad": lambda: _calculate_rovar_trad(
            value_over_time, percentile=5.0, duration=7 * 24 * 60
        ),
        "monthly_rovar_trad": lambda: _calculate_rovar_trad(
            value_over_time, percentile=5.0, duration=30 * 24 * 60
        ),
        "ulcer": lambda: _calculate_ulcer_index(value_over_time, duration=30 * 24 * 60),
        "sterling": lambda: _calculate_sterling_ratio(
            value_over_time, duration=30 * 24 * 60
        ),
        "calmar": lambda: _calculate_calmar_ratio(value_over_time),
        "reserves_and_values": lambda: {
            "final_reserves": reserves[-1],
            "final_value": (reserves[-1] * local_prices[-1]).sum(),
            "value": value_over_time,
            "prices": local_prices,
            "reserves": reserves,
        },
    }

    if return_val not in return_metrics:
        raise NotImplementedError(f"Return value type '{return_val}' not implemented")
    return return_metrics[return_val]()



if __name__ == "__main__":
    # five days of minute-level pool values and two-asset reserves
    minutes = jnp.arange(5 * 1440 + 1)
    value_over_time = 1000.0 * jnp.exp(1e-5 * minutes + 0.01 * jnp.sin(minutes / 700.0))
    local_prices = jnp.stack([1.0 + 0.0 * minutes, 2.0 + 0.1 * jnp.cos(minutes / 900.0)], axis=1)
    reserves = jnp.stack([value_over_time / 2.0, value_over_time / 4.0], axis=1)
    sharpe = _calculate_return_value(
        "daily_log_sharpe", reserves, local_prices, value_over_time
    )
    assert bool(jnp.isfinite(sharpe)), sharpe
    daily = _calculate_return_value("daily_sharpe", reserves, local_prices, value_over_time)
    assert bool(jnp.isfinite(daily)), daily
