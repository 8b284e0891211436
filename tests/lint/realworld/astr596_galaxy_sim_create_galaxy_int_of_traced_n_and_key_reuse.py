# source: https://github.com/astrobytes-edu/astr596-modeling-universe/blob/bb8e272c1ab2fec16727db6f8f1fe9f658adf35a/03-scientific-computing-with-python/05-modern-approaches-jax-ecosystem/05-jax_advanced_continued.md
#   (SDSU ASTR 596 "Modeling the Universe" course text, chapter "JAX Advanced Patterns
#   (continued)", section "Real-World Example: Galaxy Simulation": the jitted create_galaxy
#   of galaxy_simulation_production, moved out of that function to module level (dedented,
#   otherwise as written) so that the __main__ block can call it; the chapter's imports,
#   trimmed to those used. The call in __main__ is the chapter's
#   `create_galaxy(n_stars, key)` with its n_stars = 1000 and key = random.PRNGKey(42).
# observed on jax 0.10.2 CPU: create_galaxy is decorated with plain @jit, so n_stars is a
#   tracer and `int(0.8 * n_stars)` raises ConcretizationTypeError on the first disk line
#   (the later int(...) calls and the (n_bulge,) and (n_stars,) shapes would fail the same
#   way). Independently of that, the bulge draws reuse the four keys the disk draws already
#   consumed: theta draws from key1 (the disk radii), phi from key2 (the disk angles) and
#   the masses from key3 (the disk heights), so the bulge is correlated with the disk.
#   Running the function's body eagerly with n_stars = 1000 shows each pair of draws
#   receiving the same key.
# gap: other
import jax
import jax.numpy as jnp
from jax import jit
from jax import random

@jit
def create_galaxy(n_stars, key, galaxy_type='spiral'):
    """Initialize a galaxy with realistic structure."""

    key1, key2, key3, key4 = random.split(key, 4)

    if galaxy_type == 'spiral':
        # Spiral galaxy with disk and bulge

        # Disk component (exponential profile)
        radii = random.exponential(key1, (int(0.8 * n_stars),)) * 10.0  # expect: JIT401
        angles = random.uniform(key2, (int(0.8 * n_stars),),  # tolerate: JIT401
                               minval=0, maxval=2*jnp.pi)

        # Add spiral structure
        spiral_phase = 2.0 * jnp.log(radii + 1)
        angles = angles + spiral_phase

        disk_x = radii * jnp.cos(angles)
        disk_y = radii * jnp.sin(angles)
        disk_z = random.normal(key3, (int(0.8 * n_stars),)) * 0.5  # tolerate: JIT401

        # Bulge component (Hernquist profile)
        n_bulge = n_stars - int(0.8 * n_stars)  # tolerate: JIT401
        r_bulge = random.uniform(key4, (n_bulge,)) ** (1/3) * 3.0  # tolerate: JIT404
        theta = jnp.arccos(1 - 2 * random.uniform(key1, (n_bulge,)))  # expect: JIT502  # tolerate: JIT404
        phi = random.uniform(key2, (n_bulge,), minval=0, maxval=2*jnp.pi)  # expect: JIT502  # tolerate: JIT404

        bulge_x = r_bulge * jnp.sin(theta) * jnp.cos(phi)
        bulge_y = r_bulge * jnp.sin(theta) * jnp.sin(phi)
        bulge_z = r_bulge * jnp.cos(theta)

        # Combine
        positions = jnp.concatenate([
            jnp.stack([disk_x, disk_y, disk_z], axis=1),
            jnp.stack([bulge_x, bulge_y, bulge_z], axis=1)
        ])

        # Circular velocities (simplified)
        all_radii = jnp.sqrt(positions[:, 0]**2 + positions[:, 1]**2)
        v_circ = jnp.sqrt(all_radii / (all_radii + 1.0))  # Rotation curve

        velocities = jnp.zeros_like(positions)
        velocities = velocities.at[:, 0].set(-positions[:, 1] / all_radii * v_circ)
        velocities = velocities.at[:, 1].set(positions[:, 0] / all_radii * v_circ)

        # Masses (IMF-like distribution)
        masses = random.pareto(key3, 2.35, (n_stars,)) * 0.1 + 0.1  # expect: JIT502  # tolerate: JIT404
        masses = jnp.clip(masses, 0.1, 10.0)

    return positions, velocities, masses


if __name__ == "__main__":
    import inspect
    import traceback

    # Initialize and run
    key = random.PRNGKey(42)
    n_stars = 1000

    # observed: line 32 converts the traced n_stars with int(): ConcretizationTypeError there
    try:
        positions, velocities, masses = create_galaxy(n_stars, key)
    except jax.errors.ConcretizationTypeError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        assert frames[-1].lineno == 32, frames[-1]
    else:
        raise AssertionError("create_galaxy ran under jit")

    # observed: line 47, line 48 and line 69 draw from key1, key2 and key3 again,
    # which the disk draws (at 32, 33 and 42) already consumed: run the body eagerly
    # and record the key each draw gets
    drawn = {}
    for name in ("exponential", "uniform", "normal", "pareto"):
        def recorder(k, *args, _orig=getattr(random, name), **kwargs):
            line = inspect.currentframe().f_back.f_lineno
            drawn[line] = tuple(jax.random.key_data(k).tolist())
            return _orig(k, *args, **kwargs)
        setattr(random, name, recorder)
    create_galaxy.__wrapped__(n_stars, key)
    assert drawn[47] == drawn[32], "theta and disk radii"
    assert drawn[48] == drawn[33], "phi and disk angles"
    assert drawn[69] == drawn[42], "masses and disk heights"
    assert len({drawn[n] for n in (32, 33, 42, 46)}) == 4
    print("bulge draws reuse the disk keys")
