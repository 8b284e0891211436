# source: https://github.com/QuantEcon/lecture-jax/blob/3021391f9853edec91b4f02a5b40db1cd97df77e/lectures/kesten_processes.md
#   (QuantEcon's "Kesten Processes and Firm Dynamics" JAX lecture after "Kesten edits"
#   (#219), June 2025: the firm parameters in a NamedTuple, the key split into a new key and
#   three subkeys every period, and two fori_loop versions of the simulation)
# observed on jax 0.10.2 CPU: runs clean. update_cross_section and both
#   generate_cross_section_lax are jitted with the Firm NamedTuple as a pytree argument;
#   T and M keep their Python defaults (jit traces only the arguments passed), so they give
#   shapes and the fori_loop bound; the first fori_loop version threads the key through the
#   carry and splits it every step, the Python loop rebinds `key` with every split. The
#   second definition of generate_cross_section_lax replaces the first, as in the lecture.
#   A second call of the jitted versions compiles nothing.
# gap: flow-sensitive
# added: the imports without quantecon (tic/toc and the rank-size plots are left out with
#   matplotlib and the `!nvidia-smi` cell); M's default is 1_000 instead of 1_000_000 and
#   500_000 (run time and memory); the timed calls are kept without the timers, the loop
#   version's with T=50; the __main__ block.
import jax
import jax.numpy as jnp
from jax import random
from jax import lax
from typing import NamedTuple
from functools import partial


class Firm(NamedTuple):
    μ_a:   float = -0.5
    σ_a:   float = 0.1
    μ_b:   float = 0.0
    σ_b:   float = 0.5
    μ_e:   float = 0.0
    σ_e:   float = 0.5
    s_bar: float = 1.0


@jax.jit
def update_cross_section(s, a, b, e, firm):
    μ_a, σ_a, μ_b, σ_b, μ_e, σ_e, s_bar = firm
    s = jnp.where(s < s_bar, e, a * s + b)
    return s


def generate_cross_section(
        firm, M=1_000, T=500, s_init=1.0, seed=123
    ):

    μ_a, σ_a, μ_b, σ_b, μ_e, σ_e, s_bar = firm
    key = random.PRNGKey(seed)

    # Initialize the cross-section to a common value
    s = jnp.full((M, ), s_init)

    # Perform updates on s for time t
    for t in range(T):
        key, *subkeys = random.split(key, 4)
        a = μ_a + σ_a * random.normal(subkeys[0], (M,))
        b = μ_b + σ_b * random.normal(subkeys[1], (M,))
        e = μ_e + σ_e * random.normal(subkeys[2], (M,))
        # Exponentiate shocks
        a, b, e = jax.tree.map(jnp.exp, (a, b, e))
        # Update the cross-section of firms
        s = update_cross_section(s, a, b, e, firm)

    return s


firm = Firm()
data = generate_cross_section(firm, T=50).block_until_ready()


@jax.jit
def generate_cross_section_lax(
        firm, T=500, M=1_000, s_init=1.0, seed=123
    ):

    μ_a, σ_a, μ_b, σ_b, μ_e, σ_e, s_bar = firm
    key = random.PRNGKey(seed)
    
    # Initial cross section
    s = jnp.full((M, ), s_init)

    def update_cross_section(t, state):
        s, key = state
        key, *subkeys = jax.random.split(key, 4)
        # Generate current random draws 
        a = μ_a + σ_a * random.normal(subkeys[0], (M,))
        b = μ_b + σ_b * random.normal(subkeys[1], (M,))
        e = μ_e + σ_e * random.normal(subkeys[2], (M,))
        # Exponentiate them
        a, b, e = jax.tree.map(jnp.exp, (a, b, e))
        # Pull out the t-th cross-section of shocks
        s = jnp.where(s < s_bar, e, a * s + b)
        new_state = s, key
        return new_state

    # Use fori_loop 
    initial_state = s, key
    final_s, final_key = lax.fori_loop(
        0, T, update_cross_section, initial_state
    )
    return final_s


data_fori = generate_cross_section_lax(firm).block_until_ready()


@jax.jit
def generate_cross_section_lax(
        firm, T=500, M=1_000, s_init=1.0, seed=123
    ):

    μ_a, σ_a, μ_b, σ_b, μ_e, σ_e, s_bar = firm
    key = random.PRNGKey(seed)
    subkey_1, subkey_2, subkey_3 = random.split(key, 3)
    
    # Generate entire sequence of random draws 
    a = μ_a + σ_a * random.normal(subkey_1, (T, M))
    b = μ_b + σ_b * random.normal(subkey_2, (T, M))
    e = μ_e + σ_e * random.normal(subkey_3, (T, M))
    # Exponentiate them
    a, b, e = jax.tree.map(jnp.exp, (a, b, e))
    # Initial cross section
    s = jnp.full((M, ), s_init)

    def update_cross_section(t, s):
        # Pull out the t-th cross-section of shocks
        a_t, b_t, e_t = a[t], b[t], e[t]
        s = jnp.where(s < s_bar, e_t, a_t * s + b_t)
        return s

    # Use lax.scan to perform the calculations on all states
    s_final = lax.fori_loop(0, T, update_cross_section, s)
    return s_final


data_pre = generate_cross_section_lax(firm).block_until_ready()


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)
    again = generate_cross_section_lax(firm).block_until_ready()
    assert not compiles
    assert bool(jnp.array_equal(again, data_pre))
    for x in (data, data_fori, data_pre):
        assert x.shape == (1_000,) and bool(jnp.all(x > 0))
    assert not bool(jnp.array_equal(data_fori, data_pre))
