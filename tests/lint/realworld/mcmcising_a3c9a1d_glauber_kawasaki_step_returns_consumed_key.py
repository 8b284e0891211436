# source: https://github.com/aiman1661/mcmc-isingmodel/blob/a3c9a1d7ed7a0ed0bd88a881440e43c39f9f89f0/jax_ising_functions.py
#   (a 2D Ising model MCMC with Glauber and Kawasaki dynamics in JAX, at commit a3c9a1d
#   "corrected (jax) kawasaki algorithm"; the key handling is unchanged at the repository's head)
# observed on jax 0.10.2 CPU: glauber_step splits the key into (key, key_i, key_j), draws the
#   Metropolis uniform from `key` inside metropolis_test and returns that same `key`, which the
#   scan of perform_glauber_sweep carries into the next step to be split again; kawasaki_step
#   does the same with `key, subkey = split(key)`. Run step by step under jax.disable_jit with
#   jax_debug_key_reuse and a typed key, the second step raises KeyReuseError at its split.
# gap: other
# added: the __main__ block (a 6 x 6 lattice, the notebook's sweep loop for a few sweeps, and the
#   key-reuse check); the module is otherwise as the commit has it.
"""
JAX update.

author: @im@n
"""

import jax.numpy as jnp
from jax import jit, random, lax
from functools import partial

# random number generator; don't remove!
#rng = random.default_rng()

@jit
def energy_site(site, lattice, J=1.0):
    """
    Calculate energy of a site, up to nearest neighbours
    JAX-optimized version with JIT compilation
    """
    i, j = site
    n = lattice.shape[0]
    
    neighbors_sum = (lattice[i, (j-1) % n] + 
                    lattice[i, (j+1) % n] + 
                    lattice[(i-1) % n, j] + 
                    lattice[(i+1) % n, j])
    
    energy = -J * lattice[i, j] * neighbors_sum
    return energy

@jit
def energy_total(lattice, J=1.0):
    '''Calculate total energy of the lattice using JAX'''
    rolled_x = jnp.roll(lattice, shift=1, axis=0)
    rolled_y = jnp.roll(lattice, shift=1, axis=1)

    interaction = lattice * (rolled_x + rolled_y)

    energy = -J * jnp.sum(interaction)
    return energy

@jit
def delta_energy(energy_mu, energy_nu):
    'calculate energy difference between states'
    energy = energy_nu - energy_mu
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

@partial(jit, static_argnums=3)
def glauber_step(key, lattice, energy, T):
    'performs one glauber step'
    n = lattice.shape[0]

    # choosing spin to attempt flip
    key, key_i, key_j = random.split(key, 3)

    i = random.randint(key_i, (), 0, n)
    j = random.randint(key_j, (), 0, n)
    site = (i, j)

    delta_energy = -2 * energy_site(site, lattice)

    bool_test, delta_energy = metropolis_test(key, delta_energy, T)  # expect: JIT502

    lattice = lax.cond(
        bool_test,
        lambda lat: lat.at[i, j].set(-lat[i, j]),
        lambda lat: lat,
        lattice
    )

    return key, lattice, energy+delta_energy

@partial(jit, static_argnums=3)
def perform_glauber_sweep(key, lattice, energy, T):
    'performs one full sweep effectively'
    def sweep_step(carry, _):
        key, lattice, energy = carry
        key, lattice, energy = glauber_step(key, lattice, energy, T)
        return (key, lattice, energy), None

    steps = lattice.shape[0] ** 2
    (key, lattice, energy), _ = lax.scan(sweep_step, (key, lattice, energy), None, length=steps)
    return key, lattice, energy

# @partial(jit, static_argnums=(2))
# def are_nn(site1, site2, n):
#     'check if two lattice sites are nearest neighbours'
#     return ((site1[0] + 1) % n == site2[0] and site1[1] == site2[1] or
#         (site1[0] - 1) % n == site2[0] and site1[1] == site2[1] or
#         site1[0] == site2[0] and (site1[1] + 1) % n == site2[1] or
#         site1[0] == site2[0] and (site1[1] - 1) % n == site2[1]
#         )

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

@partial(jit, static_argnums=(3,4))
def kawasaki_step(key, lattice, energy, T, J:float=1.):
    'performs one kawasaki step'
    n = lattice.shape[0]

    # choosing spin to attempt flip
    # site1, site2 = random.randint(0,n,size=(2,2))

    # choosing spin to attempt flip
    key, subkey = random.split(key)
    (i, j, p, q) = random.randint(subkey, (4,), 0, n)

    # key, key_i, key_j, key_p, key_q = random.split(key, 5) # jax version

    # i = random.randint(key_i, (), 0, n)
    # j = random.randint(key_j, (), 0, n)
    # p = random.randint(key_p, (), 0, n)
    # q = random.randint(key_q, (), 0, n)

    site1 = (i, j)
    site2 = (p, q)

    # setting the sum of nearest neighbours
    nn1_sum = nn_sum(lattice, site1)
    nn2_sum = nn_sum(lattice, site2)

    # attempting flip
    delta_energy = J * (lattice[i,j] * nn1_sum + lattice[p,q] * nn2_sum) # * 2 (simulation off by factor of 1/2?)

    bool_test, delta_energy = metropolis_test(key, delta_energy + jnp.where(are_nn(site1, site2, n), 4. * J, 0.), T)  # expect: JIT502

    # if are_nn(site1,site2,n):
    #     delta_energy += 4. * J

    # swap function for the two lattice sites
    # def swap(lattice):
    #     return lattice.at[i, j].set(lattice[p, q]).at[p, q].set(lattice[i, j])

    # lattice update
    lattice = lax.cond(
        bool_test,
        lambda lat: lat.at[i, j].set(lat[p, q]).at[p, q].set(lat[i, j]),
        lambda lat: lat,
        lattice
        )

    return key, lattice, energy+delta_energy

@partial(jit, static_argnums=(3,4))
def perform_kawasaki_sweep(key, lattice, energy, T, J:float=1.):
    'performs one full sweep effectively'
    def sweep_step(carry, _):
        key, lattice, energy = carry
        key, lattice, energy = kawasaki_step(key, lattice, energy, T, J)
        return (key, lattice, energy), None

    steps = lattice.shape[0] ** 2
    (key, lattice, energy), _ = lax.scan(sweep_step, (key, lattice, energy), None, length=steps)
    return key, lattice, energy

def get_magnetisation(lattice):
    'calculate the magnetisation of the lattice'
    return jnp.sum(lattice)


if __name__ == "__main__":
    import traceback

    import jax

    # the notebook's loop: a fresh subkey per sweep, the key returned by the sweep dropped
    key = random.PRNGKey(0)
    lattice = random.choice(random.PRNGKey(1), jnp.array([-1., 1.]), shape=(6, 6))
    energy = energy_total(lattice)
    for sweep in range(3):
        key, subkey, subkey2 = random.split(key, 3)
        _, lattice, energy = perform_glauber_sweep(subkey, lattice, energy, 1.0)
        _, lattice, energy = perform_kawasaki_sweep(subkey2, lattice, energy, 1.0)
    print(energy, get_magnetisation(lattice))

    # observed: line 85 (glauber_step) and line 166 (kawasaki_step) draw the Metropolis uniform
    # from the key that the step then returns to be split again; under jax_debug_key_reuse the
    # next step's split of that carried key is refused (the split at the top of each step)
    jax.config.update("jax_debug_key_reuse", True)
    for step, split_line in ((glauber_step, 77), (kawasaki_step, 146)):
        try:
            with jax.disable_jit():
                k, lat, e = step(random.key(0), lattice, energy, 1.0)
                step(k, lat, e, 1.0)
        except Exception as err:
            tb = traceback.extract_tb(err.__traceback__)
            lines = [f.lineno for f in tb if f.filename == __file__]
            print(type(err).__name__, "at line", lines[-1])
            assert type(err).__name__ == "KeyReuseError" and lines[-1] == split_line
        else:
            raise AssertionError("no KeyReuseError")
    jax.config.update("jax_debug_key_reuse", False)
