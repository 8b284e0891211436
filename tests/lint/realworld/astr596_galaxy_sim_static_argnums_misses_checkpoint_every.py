# source: https://github.com/astrobytes-edu/astr596-modeling-universe/blob/bb8e272c1ab2fec16727db6f8f1fe9f658adf35a/03-scientific-computing-with-python/05-modern-approaches-jax-ecosystem/05-jax_advanced_continued.md
#   (SDSU ASTR 596 "Modeling the Universe" course text, chapter "JAX Advanced Patterns
#   (continued)", section "Real-World Example: Galaxy Simulation": galaxy_simulation_production
#   as written up to its energy printout; the plots after it are left out. Added: the
#   chapter's imports (trimmed to those used) and `from functools import partial`, which the
#   chapter uses without importing. The chapter's own create_galaxy raises before this code
#   is reached (see astr596_galaxy_sim_create_galaxy_int_of_traced_n_and_key_reuse.py), so its
#   call is replaced by the smallest stand-in: random positions, velocities and masses of the
#   same shapes.
# observed on jax 0.10.2 CPU: evolve_galaxy is jitted with static_argnums=(3,), which makes
#   n_steps static (also when passed by keyword), but checkpoint_every, given by keyword at
#   the call, stays traced: `trajectory[::checkpoint_every]` raises IndexError ("Slice entries
#   must be static integers"). The `i % checkpoint_every` in the scan body
#   works on the tracer and is fine.
# gap: other
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap
from jax.lax import scan
from jax import random
from functools import partial
import time

def galaxy_simulation_production():
    """
    Production-ready galaxy simulation using all JAX features.
    Demonstrates best practices for scientific computing.
    """

    print("\nPRODUCTION GALAXY SIMULATION")
    print("=" * 50)
    # Optimized force calculation
    @jit
    def compute_forces_fast(positions, masses, softening=0.1):
        """
        Fast force calculation using vectorization.
        O(N²) but highly optimized.
        """
        n = len(masses)

        # Compute all pairwise vectors at once
        r_ij = positions[:, None, :] - positions[None, :, :]  # (n, n, 3)

        # Distances
        r2 = jnp.sum(r_ij**2, axis=2) + softening**2  # (n, n)
        r3 = r2 ** 1.5

        # Mask diagonal (self-interaction)
        mask = 1.0 - jnp.eye(n)

        # Forces
        F_ij = r_ij / r3[:, :, None] * mask[:, :, None]  # (n, n, 3)
        forces = jnp.sum(masses[None, :, None] * F_ij, axis=1)  # (n, 3)

        return forces * masses[:, None]

    # Adaptive time-stepping
    @jit
    def adaptive_timestep(positions, velocities, masses, base_dt=0.01):
        """Compute adaptive timestep based on local dynamics."""

        forces = compute_forces_fast(positions, masses)
        accelerations = forces / masses[:, None]

        # Criteria for timestep
        v_mag = jnp.linalg.norm(velocities, axis=1)
        a_mag = jnp.linalg.norm(accelerations, axis=1)

        # Courant condition
        dt_courant = jnp.min(0.1 / (v_mag + 1e-10))

        # Acceleration condition
        dt_accel = jnp.min(jnp.sqrt(0.1 / (a_mag + 1e-10)))

        # Take minimum
        dt = jnp.minimum(dt_courant, dt_accel)
        dt = jnp.minimum(dt, base_dt)

        return dt

    # Main evolution with all features
    @partial(jit, static_argnums=(3,))
    def evolve_galaxy(positions, velocities, masses, n_steps, checkpoint_every=100):
        """
        Full galaxy evolution with checkpointing.
        """

        def step(carry, i):
            pos, vel = carry
            
            # Adaptive timestep
            dt = adaptive_timestep(pos, vel, masses)
            
            # Leapfrog integration
            forces = compute_forces_fast(pos, masses)
            acc = forces / masses[:, None]
            
            vel_half = vel + 0.5 * dt * acc
            pos_new = pos + dt * vel_half
            
            forces_new = compute_forces_fast(pos_new, masses)
            acc_new = forces_new / masses[:, None]
            
            vel_new = vel_half + 0.5 * dt * acc_new
            
            # Energy for monitoring
            ke = 0.5 * jnp.sum(masses[:, None] * vel_new**2)
            
            # Checkpoint decision (would save to disk in practice)
            should_checkpoint = (i % checkpoint_every) == 0
            
            return (pos_new, vel_new), (pos_new, ke, dt)

        final_state, (trajectory, energies, timesteps) = scan(
            step, (positions, velocities), jnp.arange(n_steps)
        )

        return final_state, trajectory[::checkpoint_every], energies[::checkpoint_every]  # expect: JIT404

    # Initialize and run
    key = random.PRNGKey(42)
    n_stars = 1000

    print(f"\nInitializing spiral galaxy with {n_stars} stars...")
    # stand-in for the chapter's create_galaxy(n_stars, key), which raises under jit
    k1, k2, k3 = random.split(key, 3)
    positions = random.normal(k1, (n_stars, 3)) * 10.0
    velocities = random.normal(k2, (n_stars, 3)) * 0.1
    masses = random.uniform(k3, (n_stars,), minval=0.1, maxval=10.0)

    print("Running simulation...")
    start_time = time.perf_counter()

    final_state, checkpoints, energies = evolve_galaxy(
        positions, velocities, masses, n_steps=1000, checkpoint_every=100
    )

    elapsed = time.perf_counter() - start_time
    print(f"  Completed in {elapsed:.2f} seconds")
    print(f"  Steps per second: {1000/elapsed:.0f}")

    # Analysis
    initial_energy = energies[0]
    final_energy = energies[-1]
    print(f"\nEnergy conservation:")
    print(f"  Initial: {initial_energy:.2f}")
    print(f"  Final: {final_energy:.2f}")
    print(f"  Drift: {abs(final_energy - initial_energy) / abs(initial_energy) * 100:.2f}%")

# Run the production simulation
checkpoints = galaxy_simulation_production()
