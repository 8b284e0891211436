# source: https://github.com/paolodelia99/jaxfin/blob/4c45123d891ca26762c19066ffbe9145b85d5f3d/jaxfin/price_engine/black_scholes/vanilla_options.py
# observed on jax 0.10.2 CPU: commit 4c45123 ("bugfix review on how vmap is used in the
#   greeks calculations", for issue #7 "Add JAX jit optimization to improve performance when
#   calculating the Greeks") makes each vectorised greek jit a fresh vmap of the scalar
#   greek on every call, so JAX compiles it again each time: three daily calls of
#   delta/gamma/theta/rho/vega_vanilla on the same book give three backend compilations of
#   each (lines 276, 308, 340, 372, 404). The module at that commit; jaxfin's math.py, common.py
#   and utils.py helpers it imports (d1, cum_normal, _compute_d1_d2,
#   compute_discounted_call_prices, cast_arrays) are inlined without their docstrings; the
#   __main__ block is added.
# gap: per-call-recompile
"""
Black Scholes prices for Vanilla European options
"""
from typing import Union

import jax
import jax.numpy as jnp
from jax import grad, jit, vmap

# --- stand-ins: jaxfin/price_engine/math.py, common.py and utils.py at the same commit ---
from jax.scipy.special import erf

_SQRT_2 = jnp.sqrt(2.0)


@jax.jit
def d1(spots, strikes, vols, expires, discount_rates):
    vol_sqrt_t = vols * jnp.sqrt(expires)

    return jnp.divide(
        (jnp.log(spots / strikes) + (discount_rates + (vols**2 / 2)) * expires),
        vol_sqrt_t,
    )


@jax.jit
def cum_normal(x):
    return (erf(x / _SQRT_2) + 1) / 2


def _compute_d1_d2(spots, strikes, expires, vols, discount_rates):
    vol_sqrt_t = vols * jnp.sqrt(expires)

    _d1 = d1(spots, strikes, vols, expires, discount_rates)

    return [_d1, _d1 - vol_sqrt_t]


@jax.jit
def compute_discounted_call_prices(spots, strikes, expires, vols, discount_rates):
    [_d1, _d2] = _compute_d1_d2(spots, strikes, expires, vols, discount_rates)

    return cum_normal(_d1) * spots - cum_normal(_d2) * strikes * jnp.exp(
        (-discount_rates) * expires
    )


def cast_arrays(array, dtype):
    if dtype is not None:
        return [jnp.astype(el, dtype) for el in array]

    return array
# --- end of stand-ins ---


def bs_price(
    spots: jax.Array,
    strikes: jax.Array,
    expires: jax.Array,
    vols: jax.Array,
    discount_rates: jax.Array,
    are_calls: jax.Array = None,
    dtype: jnp.dtype = None,
) -> jax.Array:
    """
    Compute the option prices for european options using the Black-Scholes model.

    :param spots: (jax.Array): Array of current asset prices.
    :param strikes: (jax.Array): Array of option strike prices.
    :param expires: (jax.Array): Array of option expiration times.
    :param vols: (jax.Array): Array of option volatility values.
    :param discount_rates: (jax.Array): Array of risk-free interest rates. Defaults to None.
    :param dividend_rates: (jax.Array): Array of dividend rates. Defaults to None.
    :param are_calls: (jax.Array): Array of booleans indicating whether options are calls (True) or puts (False).
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (jax.Array): Array of computed option prices.
    """
    [spots, strikes, expires, vols] = cast_arrays(
        [spots, strikes, expires, vols], dtype
    )

    discount_factors = jnp.exp(-discount_rates * expires)

    calls = compute_discounted_call_prices(
        spots, strikes, expires, vols, discount_rates
    )

    if are_calls is None:
        return calls

    puts = calls + (strikes * discount_factors) - spots
    return jnp.where(are_calls, calls, puts)


@jit
def _delta_vanilla(
    spots: jax.Array,
    strikes: jax.Array,
    expires: jax.Array,
    vols: jax.Array,
    discount_rates: jax.Array,
    are_calls: jax.Array = None,
    dtype: jnp.dtype = None,
) -> jax.Array:
    """
    Calculate the delta of a call/put option under the BS model (scalar version)

    :param spots: (jax.Array): Array of current asset prices.
    :param strikes: (jax.Array): Array of option strike prices.
    :param expires: (jax.Array): Array of option expiration times.
    :param vols: (jax.Array): Array of option volatility values.
    :param discount_rates: (jax.Array): Array of risk-free interest rates.
    :param are_calls: (jax.Array): Array of booleans indicating whether options
                                   are calls (True) or puts (False).
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (jax.Array): Array of delta of the given options.
    """
    return grad(bs_price, argnums=0)(
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


@jit
def _gamma_vanilla(
    spots: jax.Array,
    strikes: jax.Array,
    expires: jax.Array,
    vols: jax.Array,
    discount_rates: jax.Array,
    are_calls: jax.Array = None,
    dtype: jnp.dtype = None,
) -> jax.Array:
    """
    Calculate the gamma of a european option under the BS model (scalar version)

    :param spots: (jax.Array): Array of current asset prices.
    :param strikes: (jax.Array): Array of option strike prices.
    :param expires: (jax.Array): Array of option expiration times.
    :param vols: (jax.Array): Array of option volatility values.
    :param discount_rates: (jax.Array): Array of risk-free interest rates
    :param are_calls: (jax.Array) Array of booleans indicating whether options
                                  are calls (True) or puts (False).
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (jax.Array): Array of gamma of the given options.
    """
    return grad(grad(bs_price, argnums=0), argnums=0)(
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


@jit
def _theta_vanilla(
    spots: jax.Array,
    strikes: jax.Array,
    expires: jax.Array,
    vols: jax.Array,
    discount_rates: jax.Array,
    are_calls: jax.Array = None,
    dtype: jnp.dtype = None,
) -> jax.Array:
    """
    Calculate the theta of a european option under the BS model (scalar version)

    :param spots: (jax.Array): Array of current asset prices.
    :param strikes: (jax.Array): Array of option strike prices.
    :param expires: (jax.Array): Array of option expiration times.
    :param vols: (jax.Array): Array of option volatility values.
    :param discount_rates: (jax.Array): Array of risk-free interest rates
    :param are_calls: (jax.Array) Array of booleans indicating whether options
                                  are calls (True) or puts (False).
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (jax.Array): Array of theta of the given options.
    """
    return grad(bs_price, argnums=2)(
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


@jit
def _vega_vanilla(
    spots: jax.Array,
    strikes: jax.Array,
    expires: jax.Array,
    vols: jax.Array,
    discount_rates: jax.Array,
    are_calls: jax.Array = None,
    dtype: jnp.dtype = None,
) -> jax.Array:
    """
    Calculate the vega of a european option under the BS model (scalar version)

    :param spots: (jax.Array): Array of current asset prices.
    :param strikes: (jax.Array): Array of option strike prices.
    :param expires: (jax.Array): Array of option expiration times.
    :param vols: (jax.Array): Array of option volatility values.
    :param discount_rates: (jax.Array): Array of risk-free interest rates
    :param are_calls: (jax.Array) Array of booleans indicating whether options
                                  are calls (True) or puts (False).
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (jax.Array): Array of vega of the given options.
    """
    return grad(bs_price, argnums=3)(
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


@jit
def _rho_vanilla(
    spots: jax.Array,
    strikes: jax.Array,
    expires: jax.Array,
    vols: jax.Array,
    discount_rates: jax.Array,
    are_calls: jax.Array = None,
    dtype: jnp.dtype = None,
) -> jax.Array:
    """
    Calculate the rho of a european option under the BS model (scalar version)

    :param spots: (jax.Array): Array of current asset prices.
    :param strikes: (jax.Array): Array of option strike prices.
    :param expires: (jax.Array): Array of option expiration times.
    :param vols: (jax.Array): Array of option volatility values.
    :param discount_rates: (jax.Array): Array of risk-free interest rates
    :param are_calls: (jax.Array) Array of booleans indicating whether options
                                  are calls (True) or puts (False).
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (jax.Array): Array of rho of the given options.
    """
    return grad(bs_price, argnums=4)(
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


# Vectorize version of the functions since we are dealing with arrays


def delta_vanilla(
    spots: Union[jax.Array, float],
    strikes: Union[jax.Array, float],
    expires: Union[jax.Array, float],
    vols: Union[jax.Array, float],
    discount_rates: Union[jax.Array, float],
    are_calls: Union[jax.Array, bool] = None,
    dtype: jnp.dtype = None,
) -> Union[jax.Array, float]:
    """
    Calculate the delta of a call/put option under the BS model (vectorized)

    :param spots: (Union[jax.Array, float]): Current asset price or array of prices.
    :param strikes: (Union[jax.Array, float]): Option strike price or array of prices.
    :param expires: (Union[jax.Array, float]): Option expiration time or array of times.
    :param vols: (Union[jax.Array, float]): Option volatility value or array of values.
    :param discount_rates: (Union[jax.Array, float]): Risk-free interest rate or array of rates.
    :param are_calls: (Union[jax.Array, bool]): Boolean indicating whether option is a call or
                                                put, or array of booleans.
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (Union[jax.Array, float]): Delta of the given option or array of deltas.
    """
    if jnp.isscalar(spots) or spots.shape == ():
        return _delta_vanilla(
            spots, strikes, expires, vols, discount_rates, are_calls, dtype
        )

    return jit(vmap(_delta_vanilla, in_axes=(0, 0, 0, 0, 0, 0, None)))(  # expect: JIT301
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


def gamma_vanilla(
    spots: Union[jax.Array, float],
    strikes: Union[jax.Array, float],
    expires: Union[jax.Array, float],
    vols: Union[jax.Array, float],
    discount_rates: Union[jax.Array, float],
    are_calls: Union[jax.Array, bool] = None,
    dtype: jnp.dtype = None,
) -> Union[jax.Array, float]:
    """
    Calculate the gamma of a european option under the BS model (vectorized)

    :param spots: (Union[jax.Array, float]): Current asset price or array of prices.
    :param strikes: (Union[jax.Array, float]): Option strike price or array of prices.
    :param expires: (Union[jax.Array, float]): Option expiration time or array of times.
    :param vols: (Union[jax.Array, float]): Option volatility value or array of values.
    :param discount_rates: (Union[jax.Array, float]): Risk-free interest rate or array of rates.
    :param are_calls: (Union[jax.Array, bool]): Boolean indicating whether option is a
                                                call or put, or array of booleans.
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (Union[jax.Array, float]): Gamma of the given option or array of gammas.
    """
    if jnp.isscalar(spots) or spots.shape == ():
        return _gamma_vanilla(
            spots, strikes, expires, vols, discount_rates, are_calls, dtype
        )

    return jit(vmap(_gamma_vanilla, in_axes=(0, 0, 0, 0, 0, 0, None)))(  # expect: JIT301
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


def theta_vanilla(
    spots: Union[jax.Array, float],
    strikes: Union[jax.Array, float],
    expires: Union[jax.Array, float],
    vols: Union[jax.Array, float],
    discount_rates: Union[jax.Array, float],
    are_calls: Union[jax.Array, bool] = None,
    dtype: jnp.dtype = None,
) -> Union[jax.Array, float]:
    """
    Calculate the theta of a european option under the BS model (vectorized)

    :param spots: (Union[jax.Array, float]): Current asset price or array of prices.
    :param strikes: (Union[jax.Array, float]): Option strike price or array of prices.
    :param expires: (Union[jax.Array, float]): Option expiration time or array of times.
    :param vols: (Union[jax.Array, float]): Option volatility value or array of values.
    :param discount_rates: (Union[jax.Array, float]): Risk-free interest rate or array of rates.
    :param are_calls: (Union[jax.Array, bool]): Boolean indicating whether option is a
                                                call or put, or array of booleans.
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (Union[jax.Array, float]): Theta of the given option or array of thetas.
    """
    if jnp.isscalar(spots) or spots.shape == ():
        return _theta_vanilla(
            spots, strikes, expires, vols, discount_rates, are_calls, dtype
        )

    return jit(vmap(_theta_vanilla, in_axes=(0, 0, 0, 0, 0, 0, None)))(  # expect: JIT301
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


def rho_vanilla(
    spots: Union[jax.Array, float],
    strikes: Union[jax.Array, float],
    expires: Union[jax.Array, float],
    vols: Union[jax.Array, float],
    discount_rates: Union[jax.Array, float],
    are_calls: Union[jax.Array, bool] = None,
    dtype: jnp.dtype = None,
) -> Union[jax.Array, float]:
    """
    Calculate the rho of a european option under the BS model (vectorized)

    :param spots: (Union[jax.Array, float]): Current asset price or array of prices.
    :param strikes: (Union[jax.Array, float]): Option strike price or array of prices.
    :param expires: (Union[jax.Array, float]): Option expiration time or array of times.
    :param vols: (Union[jax.Array, float]): Option volatility value or array of values.
    :param discount_rates: (Union[jax.Array, float]): Risk-free interest rate or array of rates.
    :param are_calls: (Union[jax.Array, bool]): Boolean indicating whether option is a
                                                call or put, or array of booleans.
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (Union[jax.Array, float]): Rho of the given option or array of rhos.
    """
    if jnp.isscalar(spots) or spots.shape == ():
        return _rho_vanilla(
            spots, strikes, expires, vols, discount_rates, are_calls, dtype
        )

    return jit(vmap(_rho_vanilla, in_axes=(0, 0, 0, 0, 0, 0, None)))(  # expect: JIT301
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


def vega_vanilla(
    spots: Union[jax.Array, float],
    strikes: Union[jax.Array, float],
    expires: Union[jax.Array, float],
    vols: Union[jax.Array, float],
    discount_rates: Union[jax.Array, float],
    are_calls: Union[jax.Array, bool] = None,
    dtype: jnp.dtype = None,
) -> Union[jax.Array, float]:
    """
    Calculate the vega of a european option under the BS model (vectorized)

    :param spots: (Union[jax.Array, float]): Current asset price or array of prices.
    :param strikes: (Union[jax.Array, float]): Option strike price or array of prices.
    :param expires: (Union[jax.Array, float]): Option expiration time or array of times.
    :param vols: (Union[jax.Array, float]): Option volatility value or array of values.
    :param discount_rates: (Union[jax.Array, float]): Risk-free interest rate or array of rates.
    :param are_calls: (Union[jax.Array, bool]): Boolean indicating whether option is a
                                                call or put, or array of booleans.
    :param dtype: (jnp.dtype): Data type of the output. Defaults to None.
    :return: (Union[jax.Array, float]): Vega of the given option or array of vegas.
    """
    if jnp.isscalar(spots):
        return _vega_vanilla(
            spots, strikes, expires, vols, discount_rates, are_calls, dtype
        )

    return jit(vmap(_vega_vanilla, in_axes=(0, 0, 0, 0, 0, 0, None)))(  # expect: JIT301
        spots, strikes, expires, vols, discount_rates, are_calls, dtype
    )


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    spots = jnp.array([100.0, 90.0, 80.0, 110.0, 120.0])
    strikes = jnp.array([120.0, 75.0, 75.0, 120.0, 120.0])
    expires = jnp.ones(5)
    vols = jnp.array([0.3, 0.25, 0.4, 0.2, 0.1])
    rates = jnp.array([0.01, 0.0125, 0.02, 0.03, 0.05])
    are_calls = jnp.array([True, False, False, True, True])
    for day in range(3):  # a risk report recomputes the greeks of one book every day
        deltas = delta_vanilla(spots + day, strikes, expires, vols, rates, are_calls)
        gammas = gamma_vanilla(spots + day, strikes, expires, vols, rates, are_calls)
        thetas = theta_vanilla(spots + day, strikes, expires, vols, rates, are_calls)
        rhos = rho_vanilla(spots + day, strikes, expires, vols, rates, are_calls)
        vegas = vega_vanilla(spots + day, strikes, expires, vols, rates, are_calls)
    n = sum(1 for name in compiles if name == "jit(_delta_vanilla)")
    # observed: line 276 compiles vmap(_delta_vanilla) once per call: 3 calls, 3 compilations
    assert n == 3, compiles
    n = sum(1 for name in compiles if name == "jit(_gamma_vanilla)")
    # observed: line 308 compiles vmap(_gamma_vanilla) once per call: 3 calls, 3 compilations
    assert n == 3, compiles
    n = sum(1 for name in compiles if name == "jit(_theta_vanilla)")
    # observed: line 340 compiles vmap(_theta_vanilla) once per call: 3 calls, 3 compilations
    assert n == 3, compiles
    n = sum(1 for name in compiles if name == "jit(_rho_vanilla)")
    # observed: line 372 compiles vmap(_rho_vanilla) once per call: 3 calls, 3 compilations
    assert n == 3, compiles
    n = sum(1 for name in compiles if name == "jit(_vega_vanilla)")
    # observed: line 404 compiles vmap(_vega_vanilla) once per call: 3 calls, 3 compilations
    assert n == 3, compiles
