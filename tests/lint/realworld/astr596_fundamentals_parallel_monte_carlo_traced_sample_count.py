# source: https://github.com/astrobytes-edu/astr596-modeling-universe/blob/e43450c5a1f4d8b709ba5deb89d0fa9b5474df73/03-scientific-computing-with-python/05-modern-approaches-jax-ecosystem/01-jax_fundamentals_chapter.md
#   (SDSU ASTR 596 "Modeling the Universe" course text, chapter "JAX Fundamentals", section
#   "Random Numbers in JAX": the chapter's function jax_random_numbers as written; the
#   imports are the chapter's first cell, trimmed to those used)
# observed on jax 0.10.2 CPU: parallel_monte_carlo is decorated with plain @jit and called
#   with n_samples_per_thread=10000: the count arrives as a tracer, and the shape
#   (n_samples_per_thread,) given to random.normal inside the vmapped single_mc raises
#   TypeError ("Shapes must be 1D sequences of concrete values of integer type").
#   Parts 1 and 2, before it, run eagerly and are correct.
# gap: other
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap
from jax import random

def jax_random_numbers():
    """JAX's approach to random numbers for reproducible science."""

    print("RANDOM NUMBERS IN JAX")
    print("=" * 50)

    # 1. JAX PRNG basics
    print("\n1. PRNG BASICS:")

    # Create a random key
    key = random.PRNGKey(42)
    print(f"  Initial key: {key}")

    # Split key for independent streams
    key, subkey = random.split(key)
    print(f"  Split keys: {key}, {subkey}")

    # Generate random numbers
    uniform_samples = random.uniform(subkey, shape=(5,))
    print(f"  Uniform samples: {uniform_samples}")

    # 2. Why explicit keys matter
    print("\n2. REPRODUCIBILITY:")

    def monte_carlo_integration(f, n_samples, key):
        """Monte Carlo integration of function f over [0,1]³."""
        # Split key for different random numbers
        key1, key2, key3 = random.split(key, 3)
        
        x = random.uniform(key1, (n_samples,))
        y = random.uniform(key2, (n_samples,))
        z = random.uniform(key3, (n_samples,))
        
        samples = vmap(f)(x, y, z)
        return jnp.mean(samples)

    def test_function(x, y, z):
        return x**2 + y**2 + z**2

    # Same key → same result (reproducible!)
    key1 = random.PRNGKey(123)
    result1 = monte_carlo_integration(test_function, 10000, key1)

    key2 = random.PRNGKey(123)  # Same seed
    result2 = monte_carlo_integration(test_function, 10000, key2)

    print(f"  Result 1: {result1:.6f}")
    print(f"  Result 2: {result2:.6f}")
    print(f"  Identical: {result1 == result2}")

    # 3. Random numbers in parallel computations
    print("\n3. PARALLEL RANDOM STREAMS:")

    @jit
    def parallel_monte_carlo(keys, n_samples_per_thread):
        """Run MC in parallel with independent random streams."""
        
        def single_mc(key):
            samples = random.normal(key, (n_samples_per_thread,))  # expect: JIT404
            return jnp.mean(samples**2)  # Estimate <x²>
        
        # vmap over different keys
        results = vmap(single_mc)(keys)
        return results

    # Create independent keys for parallel execution
    main_key = random.PRNGKey(0)
    n_threads = 4
    keys = random.split(main_key, n_threads)

    estimates = parallel_monte_carlo(keys, 10000)
    print(f"  Parallel estimates of <x²>: {estimates}")
    print(f"  Mean: {jnp.mean(estimates):.4f} (expected: 1.0)")

    # 4. Sampling from distributions
    print("\n4. ASTRONOMICAL DISTRIBUTIONS:")

    key = random.PRNGKey(42)

    # Initial Mass Function (power law)
    def sample_imf(key, n_stars, alpha=-2.35):
        """Sample from Salpeter IMF."""
        key1, key2 = random.split(key)
        
        # Inverse transform sampling
        u = random.uniform(key1, (n_stars,))
        m_min, m_max = 0.1, 100.0
        
        if alpha == -1:
            masses = m_min * (m_max/m_min)**u
        else:
            masses = ((m_max**(alpha+1) - m_min**(alpha+1)) * u + 
                     m_min**(alpha+1))**(1/(alpha+1))
        
        return masses

    masses = sample_imf(key, 1000)
    print(f"  Sampled {len(masses)} stellar masses")
    print(f"  Mass range: {jnp.min(masses):.2f} - {jnp.max(masses):.2f} M☉")
    print(f"  Mean mass: {jnp.mean(masses):.2f} M☉")

jax_random_numbers()
