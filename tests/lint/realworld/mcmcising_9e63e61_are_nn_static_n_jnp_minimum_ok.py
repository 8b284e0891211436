# source: https://github.com/aiman1661/mcmc-isingmodel/blob/9e63e6144956480d45cd898e3c60a7013f81760f/jax_ising_functions.py
#   (commit 9e63e61 "jitted kawasaki function" of a 2D Ising model MCMC in JAX: are_nn rewritten
#   from `and`/`or` on traced comparisons to jnp.abs/jnp.minimum, with the lattice size n static)
# observed on jax 0.10.2 CPU: are_nn, nn_sum, energy_total and metropolis_test run under jit
#   and agree with the plain-Python neighbour test; the Kawasaki delta-energy term
#   jnp.where(are_nn(...), 4. * J, 0.) traces cleanly.
# gap: other
# added: the __main__ block; the four functions are the commit's (kawasaki_step, which carries
#   the key that metropolis_test consumed, is left out).
import jax.numpy as jnp
from jax import jit, random, lax
from functools import partial

@jit
def energy_total(lattice, J=1.0):
    '''Calculate total energy of the lattice using JAX'''
    rolled_x = jnp.roll(lattice, shift=1, axis=0)
    rolled_y = jnp.roll(lattice, shift=1, axis=1)

    interaction = lattice * (rolled_x + rolled_y)

    energy = -J * jnp.sum(interaction)
    return energy

@partial(jit, static_argnums=2)
def metropolis_test(key, delta_E, T):
    'performs the metropolis test'

    # metropolis criterion
    probability = jnp.minimum(1.0,jnp.exp(-delta_E/T))
    p_metro = random.uniform(key)

    bool_test = (p_metro <= probability) # condition
    delta_energy_carry = jnp.where(bool_test, delta_E, 0.0) # where(condition, new, old)
    return bool_test, delta_energy_carry

@partial(jit, static_argnums=(2))
def are_nn(site1, site2, n):
    dx = jnp.abs(site1[0] - site2[0])
    dy = jnp.abs(site1[1] - site2[1])
    dx = jnp.minimum(dx, n - dx)
    dy = jnp.minimum(dy, n - dy)
    return (dx + dy) == 1

@jit
def nn_sum(lattice, site):
    'summing the nn contribution'
    i, j = site
    n = lattice.shape[0]
    return (
        lattice[(i + 1) % n, j] +
        lattice[(i - 1) % n, j] +
        lattice[i, (j + 1) % n] +
        lattice[i, (j - 1) % n]
    )


if __name__ == "__main__":
    n = 6
    key, lat_key, site_key, test_key = random.split(random.PRNGKey(0), 4)
    lattice = random.choice(lat_key, jnp.array([-1., 1.]), shape=(n, n))
    sites = random.randint(site_key, (20, 4), 0, n)
    for i, j, p, q in sites.tolist():
        expected = ((i + 1) % n == p and j == q or (i - 1) % n == p and j == q
                    or i == p and (j + 1) % n == q or i == p and (j - 1) % n == q)
        got = are_nn(jnp.array([i, j]), jnp.array([p, q]), lattice.shape[0])
        assert bool(got) == expected
    i, j, p, q = sites[0]
    J = 1.
    delta_energy = J * (lattice[i, j] * nn_sum(lattice, (i, j)) + lattice[p, q] * nn_sum(lattice, (p, q)))
    bool_test, delta_energy = metropolis_test(
        test_key, delta_energy + jnp.where(are_nn((i, j), (p, q), n), 4. * J, 0.), 1.0)
    print(energy_total(lattice), bool_test, delta_energy)
