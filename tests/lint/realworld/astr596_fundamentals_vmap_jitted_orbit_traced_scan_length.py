# source: https://github.com/astrobytes-edu/astr596-modeling-universe/blob/e43450c5a1f4d8b709ba5deb89d0fa9b5474df73/03-scientific-computing-with-python/05-modern-approaches-jax-ecosystem/01-jax_fundamentals_chapter.md
#   (SDSU ASTR 596 "Modeling the Universe" course text, chapter "JAX Fundamentals", section
#   "Vectorization with vmap": the chapter's function vmap_for_astronomy as written; the
#   imports are the chapter's first cell, trimmed to those used, plus `from jax.lax import
#   scan`, which the chapter imports only inside an earlier function)
# observed on jax 0.10.2 CPU: part 3 decorates integrate_single_orbit with plain @jit and
#   vmaps it with in_axes=(0, None): n_steps=100 reaches the jitted function as a tracer, and
#   scan(..., length=n_steps) raises ConcretizationTypeError (scan's length must be a Python
#   int: static_argnums=1 on the jit is what the code needs).
# gap: other
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap
from jax import random
from jax.lax import scan

def vmap_for_astronomy():
    """Vectorization patterns for astronomical computations."""

    print("VMAP: AUTOMATIC VECTORIZATION")
    print("=" * 50)

    # 1. Basic vectorization
    print("\n1. VECTORIZING DISTANCE CALCULATIONS:")

    def angular_distance(ra1, dec1, ra2, dec2):
        """Angular distance between two points (haversine)."""
        dra = ra2 - ra1
        ddec = dec2 - dec1
        
        a = jnp.sin(ddec/2)**2 + jnp.cos(dec1) * jnp.cos(dec2) * jnp.sin(dra/2)**2
        c = 2 * jnp.arcsin(jnp.sqrt(a))
        
        return c

    # Vectorize over first source (compare one to many)
    vmap_one_to_many = vmap(angular_distance, in_axes=(None, None, 0, 0))

    # Vectorize over both (pairwise)
    vmap_pairwise = vmap(angular_distance, in_axes=(0, 0, 0, 0))

    # Test data
    ra_catalog = random.uniform(random.PRNGKey(0), (1000,), minval=0, maxval=2*jnp.pi)
    dec_catalog = random.uniform(random.PRNGKey(1), (1000,), minval=-jnp.pi/2, maxval=jnp.pi/2)

    # Distance from single source to catalog
    ra_source, dec_source = jnp.pi, 0.0
    distances = vmap_one_to_many(ra_source, dec_source, ra_catalog, dec_catalog)
    print(f"  Distances from source: shape {distances.shape}")
    print(f"  Nearest neighbor: {jnp.min(distances):.4f} rad")

    # 2. Nested vmap for all-pairs
    print("\n2. ALL-PAIRS DISTANCES:")

    # Nested vmap for N×N distance matrix
    vmap_all_pairs = vmap(
        vmap(angular_distance, in_axes=(None, None, 0, 0)),
        in_axes=(0, 0, None, None)
    )

    # Small sample for all-pairs
    ra_sample = ra_catalog[:10]
    dec_sample = dec_catalog[:10]

    distance_matrix = vmap_all_pairs(ra_sample, dec_sample, ra_sample, dec_sample)
    print(f"  Distance matrix shape: {distance_matrix.shape}")
    print(f"  Symmetric: {jnp.allclose(distance_matrix, distance_matrix.T)}")

    # 3. Vectorizing complex functions
    print("\n3. VECTORIZING ORBIT INTEGRATION:")

    @jit
    def integrate_single_orbit(initial_conditions, n_steps):
        """Integrate single orbit."""
        r0, v0 = initial_conditions[:3], initial_conditions[3:]
        
        def step(carry, _):
            r, v = carry
            a = -r / jnp.linalg.norm(r)**3
            v_new = v + a * 0.01
            r_new = r + v_new * 0.01
            return (r_new, v_new), r_new
        
        _, trajectory = scan(step, (r0, v0), None, length=n_steps)  # expect: JIT404
        return trajectory

    # Vectorize over different initial conditions
    vmap_orbits = vmap(integrate_single_orbit, in_axes=(0, None))

    # Multiple initial conditions (different eccentricities)
    initial_conditions = jnp.array([
        [1.0, 0.0, 0.0, 0.0, 1.0, 0.0],   # Circular
        [1.0, 0.0, 0.0, 0.0, 1.2, 0.0],   # Elliptical
        [1.0, 0.0, 0.0, 0.0, 0.8, 0.0],   # Elliptical
    ])

    trajectories = vmap_orbits(initial_conditions, 100)
    print(f"  Integrated {len(trajectories)} orbits in parallel")
    print(f"  Trajectories shape: {trajectories.shape}")

    # 4. Combining vmap with grad
    print("\n4. VECTORIZED GRADIENTS:")

    def potential(position, mass_distribution):
        """Gravitational potential at position."""
        positions, masses = mass_distribution
        distances = vmap(lambda p: jnp.linalg.norm(position - p))(positions)
        return -jnp.sum(masses / distances)

    # Gradient of potential
    grad_potential = grad(potential)

    # Vectorize gradient calculation over multiple positions
    vmap_gradient = vmap(grad_potential, in_axes=(0, None))

    # Mass distribution (galaxy model)
    n_masses = 100
    mass_positions = random.normal(random.PRNGKey(2), (n_masses, 3)) * 10
    masses = random.uniform(random.PRNGKey(3), (n_masses,), minval=0.1, maxval=1.0)
    mass_distribution = (mass_positions, masses)

    # Calculate gradient at multiple points
    test_positions = jnp.array([
        [0.0, 0.0, 0.0],
        [5.0, 0.0, 0.0],
        [0.0, 5.0, 0.0],
        [5.0, 5.0, 5.0]
    ])

    gradients = vmap_gradient(test_positions, mass_distribution)
    print(f"  Gradients at {len(test_positions)} positions:")
    for i, (pos, grad) in enumerate(zip(test_positions, gradients)):
        print(f"    Position {pos}: Force = {-grad}")

vmap_for_astronomy()

