# source: https://github.com/QuantEcon/lecture-jax/issues/33
#   (the fix, lectures/wealth_dynamics.md at commit 0bfefc5a5adf7493501282e49f02b6a5a3bce815,
#   PR #62 "remove jit for fast compile": the `for`-loop version and `update_states_jax` are
#   no longer jitted, the scan version and the cross-section functions still are, with
#   `static_argnums=(1,3,)`)
# observed on jax 0.10.2 CPU: every function runs and returns finite results: the namedtuple
#   Model is a pytree of traced parameters, `n` and `size` are static (a Python int and a
#   tuple), the traced `rand_seed` reaches jax.random.PRNGKey inside jit, update_states_jax
#   runs inside lax.scan with the static `size`, and `gini_jax` scans from the Python int 0
#   (a weak-typed carry promoted to float). (Before the fix, jitting the 200-step Python loop
#   took minutes to compile on CPU, the "Very slow compile".)
# gap: static-hashability
# added: imports, the __main__ block; the plots are left out, and generate_lorenz_and_gini_jax
#   is called with num_households=1_000, T=50 (the lecture's 100_000 households make the
#   O(n^2) Gini scan too slow for a CPU check).
from collections import namedtuple

import jax
import jax.numpy as jnp


@jax.jit
def lorenz_curve_jax(y):
    n = y.shape[0]
    y = jnp.sort(y)
    s = jnp.concatenate((jnp.zeros(1), jnp.cumsum(y)))
    _cum_p = jnp.arange(1, n + 1) / n
    cum_income = s / s[n]
    cum_people = jnp.concatenate((jnp.zeros(1), _cum_p))
    return cum_people, cum_income


@jax.jit
def gini_jax(y):
    n = y.shape[0]
    g_sum = 0

    # Define the function for each update
    def sum_y_gini(g_sum, i):
        g_sum += jnp.sum(jnp.abs(y[i] - y))
        return g_sum, g_sum

    g_sum, _ = jax.lax.scan(sum_y_gini, 0, jnp.arange(n))
    return g_sum / (2 * n * jnp.sum(y))


# NamedTuple Model
Model = namedtuple("Model", ("w_hat", "s_0", "c_y", "μ_y",
                             "σ_y", "c_r", "μ_r", "σ_r", "a",
                             "b", "σ_z", "z_mean", "z_var", "y_mean"))


def create_wealth_model(w_hat=1.0,
                        s_0=0.75,
                        c_y=1.0,
                        μ_y=1.0,
                        σ_y=0.2,
                        c_r=0.05,
                        μ_r=0.1,
                        σ_r=0.5,
                        a=0.5,
                        b=0.0,
                        σ_z=0.1):
    """
    Create a wealth model with given parameters and return
    and instance of NamedTuple Model.
    """
    z_mean = b / (1 - a)
    z_var = σ_z**2 / (1 - a**2)
    exp_z_mean = jnp.exp(z_mean + z_var / 2)
    R_mean = c_r * exp_z_mean + jnp.exp(μ_r + σ_r**2 / 2)
    y_mean = c_y * exp_z_mean + jnp.exp(μ_y + σ_y**2 / 2)

    # Test a stability condition that ensures wealth does not diverge
    # to infinity.
    α = R_mean * s_0
    if α >= 1:
        raise ValueError("Stability condition failed.")

    return Model(w_hat=w_hat, s_0=s_0, c_y=c_y, μ_y=μ_y,
                 σ_y=σ_y, c_r=c_r, μ_r=μ_r, σ_r=σ_r, a=a,
                 b=b, σ_z=σ_z, z_mean=z_mean, z_var=z_var, y_mean=y_mean)


def update_states_jax(arrays, wdy, size, rand_key):
    """
    Update one period, given current wealth w and persistent
    state z. They are stored in the form of tuples under the arrays argument
    """
    # Unpack w and z
    w, z = arrays

    rand_key, *subkey = jax.random.split(rand_key, 3)
    zp = wdy.a * z + wdy.b + wdy.σ_z * jax.random.normal(rand_key, shape=size)

    # Update wealth
    y = wdy.c_y * jnp.exp(zp) + jnp.exp(
                        wdy.μ_y + wdy.σ_y * jax.random.normal(subkey[0], shape=size))
    wp = y

    R = wdy.c_r * jnp.exp(zp) + jnp.exp(
                        wdy.μ_r + wdy.σ_r * jax.random.normal(subkey[1], shape=size))
    wp += (w >= wdy.w_hat) * R * wdy.s_0 * w
    return wp, zp


# Using JAX and for loop
def wealth_time_series_for_loop_jax(w_0, n, wdy, size, rand_seed=1):
    """
    Generate a single time series of length n for wealth given
    initial value w_0.

    * This implementation uses a `for` loop.

    The initial persistent state z_0 for each household is drawn from
    the stationary distribution of the AR(1) process.

        * wdy: NamedTuple Model
        * w_0: scalar/vector
        * n: int
        * size: size/shape of the w_0
        * rand_seed: int (Used to generate PRNG key)
    """
    rand_key = jax.random.PRNGKey(rand_seed)
    rand_key, *subkey = jax.random.split(rand_key, n)

    w_0 = jax.device_put(w_0).reshape(size)

    z = wdy.z_mean + jnp.sqrt(wdy.z_var) * jax.random.normal(rand_key, shape=size)
    w = [w_0]
    for t in range(n-1):
        w_, z = update_states_jax((w[t], z), wdy, size, subkey[t])
        w.append(w_)
    return jnp.array(w)


def wealth_time_series_jax(w_0, n, wdy, size, rand_seed=1):
    """
    Generate a single time series of length n for wealth given
    initial value w_0.

    * This implementation uses `jax.lax.scan`.

    The initial persistent state z_0 for each household is drawn from
    the stationary distribution of the AR(1) process.

        * wdy: NamedTuple Model
        * w_0: scalar/vector
        * n: int
        * size: size/shape of the w_0
        * rand_seed: int (Used to generate PRNG key)
    """
    rand_key = jax.random.PRNGKey(rand_seed)
    rand_key, *subkey = jax.random.split(rand_key, n)

    w_0 = jax.device_put(w_0).reshape(size)
    z_init = wdy.z_mean + jnp.sqrt(wdy.z_var) * jax.random.normal(rand_key, shape=size)
    arrays = w_0, z_init
    rand_sub_keys = jnp.array(subkey)

    w_final = jnp.array([w_0])

    # Define the function for each update
    def update_w_z(arrays, rand_sub_key):
        wp, zp = update_states_jax(arrays, wdy, size, rand_sub_key)
        return (wp, zp), wp

    arrays_last, w_values = jax.lax.scan(update_w_z, arrays, rand_sub_keys)
    return jnp.concatenate((w_final, w_values))


# Create the jit function
wealth_time_series_jax = jax.jit(wealth_time_series_jax, static_argnums=(1,3,))


def update_cross_section_jax(w_distribution, shift_length, wdy, size, rand_seed=2):
    """
    Shifts a cross-section of household forward in time

    * wdy: NamedTuple Model
    * w_distribution: array_like, represents current cross-section

    Takes a current distribution of wealth values as w_distribution
    and updates each w_t in w_distribution to w_{t+j}, where
    j = shift_length.

    Returns the new distribution.
    """
    new_dist = wealth_time_series_jax(w_distribution, shift_length, wdy, size, rand_seed)
    new_distribution = new_dist[-1, :]
    return new_distribution


# Create the jit function
update_cross_section_jax = jax.jit(update_cross_section_jax, static_argnums=(1,3,))


def generate_lorenz_and_gini_jax(wdy, num_households=100_000, T=500):
    """
    Generate the Lorenz curve data and gini coefficient corresponding to a
    WealthDynamics mode by simulating num_households forward to time T.
    """
    size = (num_households, )
    ψ_0 = jnp.full(size, wdy.y_mean)
    ψ_star = update_cross_section_jax(ψ_0, T, wdy, size)
    return gini_jax(ψ_star), lorenz_curve_jax(ψ_star)


# Create the jit function
generate_lorenz_and_gini_jax = jax.jit(generate_lorenz_and_gini_jax,
                                       static_argnums=(1,2,))


if __name__ == "__main__":
    n = 10_000                                              # Size of sample
    rand_key = jax.random.PRNGKey(101)                      # Set random key
    w = jnp.exp(jax.random.normal(rand_key, shape=(n,)))    # Lognormal draws
    f_vals, l_vals = lorenz_curve_jax(w)
    f_vals, l_vals = lorenz_curve_jax(w)
    assert float(l_vals[-1]) == 1.0

    a_vals = range(1, 20)
    ginis = []
    ginis_theoretical = []
    n = 100
    for a in a_vals:
        rand_key = jax.random.PRNGKey(a)
        y = jax.random.weibull_min(rand_key, 1, a, shape=(n,))
        ginis.append(gini_jax(y))
        ginis_theoretical.append(1 - 2**(-1/a))
    assert max(abs(float(g) - t) for g, t in zip(ginis, ginis_theoretical)) < 0.15

    wdy = create_wealth_model() # default model
    ts_length = 200
    size = (1,)
    w_jax_result = wealth_time_series_for_loop_jax(wdy.y_mean,
                                                   ts_length, wdy, size).block_until_ready()
    w_jax_result = wealth_time_series_for_loop_jax(wdy.y_mean,
                                                   ts_length, wdy, size).block_until_ready()
    assert w_jax_result.shape == (ts_length, 1) and bool(jnp.isfinite(w_jax_result).all())

    w_scan = wealth_time_series_jax(wdy.y_mean, ts_length, wdy, size).block_until_ready()
    assert w_scan.shape == (ts_length, 1) and bool(jnp.isfinite(w_scan).all())

    μ_r_vals = (0.0, 0.025, 0.05)
    gini_vals = []
    for μ_r in μ_r_vals:
        wdy = create_wealth_model(μ_r=μ_r)
        gv, (f_vals, l_vals) = generate_lorenz_and_gini_jax(wdy, 1_000, 50)
        gini_vals.append(gv)
    assert all(0.0 < float(g) < 1.0 for g in gini_vals)
