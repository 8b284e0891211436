# source: https://github.com/astrobytes-edu/astr596-modeling-universe/blob/e43450c5a1f4d8b709ba5deb89d0fa9b5474df73/03-scientific-computing-with-python/05-modern-approaches-jax-ecosystem/05-jax_advanced_chapter.md
#   (SDSU ASTR 596 "Modeling the Universe" course text, chapter "JAX Advanced Patterns",
#   section "Conditional Execution with lax.cond": the function jax_control_flow as written;
#   the chapter's first cell's imports, trimmed to those used; the chapter's module-level
#   call `jax_control_flow()` is moved into the __main__ block)
# observed on jax 0.10.2 CPU: runs clean. stellar_evolution_step branches on the traced age
#   with nested lax.cond (the white-dwarf branch's Python float radius is promoted to the
#   other branches' type), process_observation takes its branch index obs_type as a traced
#   int through lax.switch, and grad of the jitted piecewise_potential differentiates
#   through lax.cond; the loops that call them run outside jit.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap
from jax.lax import cond, scan, while_loop, fori_loop, switch

def jax_control_flow():
    """Master JAX's functional control flow primitives."""

    print("JAX CONTROL FLOW PRIMITIVES")
    print("=" * 50)

    # 1. Conditional execution with cond
    print("\n1. CONDITIONAL EXECUTION:")

    @jit
    def stellar_evolution_step(age, mass):
        """
        Evolve star based on evolutionary phase.
        Different physics for different phases.
        """

        def main_sequence(args):
            age, mass = args
            # Main sequence evolution
            luminosity = mass ** 3.5
            radius = mass ** 0.8
            return luminosity, radius

        def giant_branch(args):
            age, mass = args
            # Red giant evolution
            luminosity = mass ** 2.5 * (age / 10.0)
            radius = mass ** 0.5 * (age / 10.0) ** 0.3
            return luminosity, radius

        def white_dwarf(args):
            age, mass = args
            # White dwarf cooling
            luminosity = 0.001 * jnp.exp(-(age - 12.0) / 2.0)
            radius = 0.01
            return luminosity, radius

        # Multi-way conditional
        ms_turnoff = 10.0 / mass ** 2.5  # Simplified

        # Nested conditions
        return cond(
            age < ms_turnoff,
            main_sequence,
            lambda args: cond(
                age < ms_turnoff * 1.2,
                giant_branch,
                white_dwarf,
                args
            ),
            (age, mass)
        )

    # Test different evolutionary phases
    ages = jnp.array([0.1, 5.0, 11.0, 15.0])
    mass = 1.0

    for age in ages:
        L, R = stellar_evolution_step(age, mass)
        print(f"  Age {age:.1f} Gyr: L={L:.3f} L☉, R={R:.3f} R☉")

    # 2. Switch for multiple branches
    print("\n2. SWITCH STATEMENT:")

    @jit
    def process_observation(obs_type, data):
        """Process different observation types."""

        def process_photometry(data):
            # Magnitude calculation
            return -2.5 * jnp.log10(data) + 25.0

        def process_spectroscopy(data):
            # Continuum normalization
            continuum = jnp.median(data)
            return data / continuum

        def process_imaging(data):
            # Background subtraction
            background = jnp.percentile(data, 10)
            return data - background

        branches = [process_photometry, process_spectroscopy, process_imaging]

        return switch(obs_type, branches, data)

    # Different observation types
    data = jnp.array([100.0, 150.0, 200.0])

    for obs_type in range(3):
        result = process_observation(obs_type, data)
        print(f"  Type {obs_type}: {result[0]:.3f}")

    # 3. Gradient through conditionals
    print("\n3. GRADIENTS THROUGH CONDITIONALS:")

    @jit
    def piecewise_potential(r):
        """Piecewise gravitational potential."""

        def inner_region(r):
            # Constant density sphere
            return -1.5 + 0.5 * r**2

        def outer_region(r):
            # Point mass
            return -1.0 / r

        return cond(r < 1.0, inner_region, outer_region, r)

    # Gradient (force) is continuous at boundary!
    grad_potential = grad(piecewise_potential)

    radii = jnp.array([0.5, 0.99, 1.0, 1.01, 2.0])
    for r in radii:
        force = -grad_potential(r)
        print(f"  r={r:.2f}: F={force:.4f}")


if __name__ == "__main__":
    jax_control_flow()
