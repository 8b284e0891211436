# source: https://github.com/astrobytes-edu/astr596-modeling-universe/blob/e43450c5a1f4d8b709ba5deb89d0fa9b5474df73/03-scientific-computing-with-python/05-modern-approaches-jax-ecosystem/01-jax_fundamentals_chapter.md
#   (SDSU ASTR 596 "Modeling the Universe" course text, chapter "JAX Fundamentals", section
#   "JIT Compilation: Making Python Fast": the function jit_compilation_deep_dive as written;
#   the chapter's first cell's imports, trimmed to those used, plus `from functools import
#   partial`, which the chapter imports only inside an earlier function; the chapter's
#   module-level call is moved into the __main__ block)
# observed on jax 0.10.2 CPU: runs clean. simulate_galaxy marks n_steps and dt static
#   (static_argnums=(1, 2)), so its Python loop over range(n_steps) unrolls at trace time
#   and each new n_steps compiles once; the value-dependent `if x > 0` is kept out of jit
#   (the chapter leaves its jitted call commented out) and the jitted good_function uses
#   lax.cond; debug_function prints through jax.debug.print.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap
from jax import random
from functools import partial
import time

def jit_compilation_deep_dive():
    """Deep dive into JIT compilation for scientific computing."""

    print("JIT COMPILATION IN DETAIL")
    print("=" * 50)

    # 1. Basic JIT compilation
    print("\n1. BASIC JIT:")

    def slow_function(x):
        """Computationally intensive function."""
        result = x
        for _ in range(100):
            result = jnp.sin(result) + jnp.cos(result) * jnp.exp(-result**2)
        return result

    fast_function = jit(slow_function)

    x = jnp.linspace(-2, 2, 1000)

    # Time comparison
    start = time.perf_counter()
    _ = slow_function(x)
    slow_time = time.perf_counter() - start

    # First call (includes compilation)
    start = time.perf_counter()
    _ = fast_function(x)
    first_time = time.perf_counter() - start

    # Second call (already compiled)
    start = time.perf_counter()
    _ = fast_function(x)
    fast_time = time.perf_counter() - start

    print(f"  Slow: {slow_time*1000:.2f} ms")
    print(f"  First JIT call: {first_time*1000:.2f} ms")
    print(f"  Subsequent JIT: {fast_time*1000:.2f} ms")
    print(f"  Speedup: {slow_time/fast_time:.1f}x")

    # 2. JIT with static arguments
    print("\n2. STATIC ARGUMENTS:")

    @partial(jit, static_argnums=(1, 2))
    def simulate_galaxy(positions, n_steps, dt):
        """
        Simulate galaxy dynamics.
        n_steps and dt are static (known at compile time).
        """
        def step(pos):
            # Simplified dynamics
            center_of_mass = jnp.mean(pos, axis=0)
            forces = -(pos - center_of_mass) / 100
            return pos + forces * dt

        for _ in range(n_steps):
            positions = step(positions)

        return positions

    # Different compiled versions for different static args
    pos = random.normal(random.PRNGKey(0), (100, 3))

    # These create different compiled functions
    result1 = simulate_galaxy(pos, 10, 0.1)   # Compilation 1
    result2 = simulate_galaxy(pos, 10, 0.1)   # Uses compilation 1
    result3 = simulate_galaxy(pos, 20, 0.1)   # New compilation!

    print(f"  Static arguments create specialized compiled versions")

    # 3. JIT pitfalls to avoid
    print("\n3. JIT PITFALLS:")

    # ❌ BAD: Python control flow depending on values
    def bad_function(x):
        if x > 0:  # This depends on the VALUE of x
            return jnp.sin(x)
        else:
            return jnp.cos(x)

    # This won't work with JIT for dynamic x
    # jitted_bad = jit(bad_function)
    # jitted_bad(jnp.array(0.5))  # Would fail!

    # ✅ GOOD: Use JAX control flow
    def good_function(x):
        return jax.lax.cond(
            x > 0,
            lambda x: jnp.sin(x),
            lambda x: jnp.cos(x),
            x
        )

    jitted_good = jit(good_function)
    result = jitted_good(0.5)
    print(f"  Conditional result: {result:.3f}")

    # 4. Debugging JIT compilation
    print("\n4. DEBUGGING JIT:")

    # Use jax.debug.print inside JIT
    @jit
    def debug_function(x):
        x = x * 2
        jax.debug.print("x after doubling: {x}", x=x)
        x = jnp.sin(x)
        jax.debug.print("x after sin: {x}", x=x)
        return x

    result = debug_function(1.0)

    # Check what XLA sees
    from jax import make_jaxpr

    def simple_function(x, y):
        return jnp.dot(x, y) + 1

    x = jnp.ones((3, 3))
    y = jnp.ones((3, 3))

    print("\n  JAX expression tree:")
    print(make_jaxpr(simple_function)(x, y))


if __name__ == "__main__":
    jit_compilation_deep_dive()
