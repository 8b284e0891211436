# source: https://github.com/aiman1661/mcmc-isingmodel/blob/bc5dd53c9ef45bde756204defe3c9f3527501d7e/jax_ising_functions.py
#   (a 2D Ising model MCMC with Glauber and Kawasaki dynamics, ported to JAX; commit 9e63e61
#   "jitted kawasaki function" rewrote are_nn with jnp.abs/jnp.minimum and static n)
# observed on jax 0.10.2 CPU: are_nn is jitted with n traced; `(site1[0] + 1) % n == site2[0]
#   and ...` asks for the truth value of a traced comparison and raises
#   TracerBoolConversionError on the return line.
# gap: other
# added: the call at the bottom, on two sites of a 50 x 50 lattice as kawasaki_step picks them
#   (kawasaki_step itself, which called numpy's random.randint(0, n, size=...) on jax.random,
#   is left out), and the energy helpers of the same module as they were.
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

@jit
def are_nn(site1, site2, n):
    'check if two lattice sites are nearest neighbours'
    return ((site1[0] + 1) % n == site2[0] and site1[1] == site2[1] or  # expect: JIT103
        (site1[0] - 1) % n == site2[0] and site1[1] == site2[1] or
        site1[0] == site2[0] and (site1[1] + 1) % n == site2[1] or
        site1[0] == site2[0] and (site1[1] - 1) % n == site2[1]
        )


n = 50
lattice = random.choice(random.PRNGKey(0), jnp.array([-1, 1]), shape=(n, n))
print(energy_total(lattice), energy_site((3, 4), lattice))
site1, site2 = jnp.array([3, 4]), jnp.array([4, 4])
print(are_nn(site1, site2, n))
