# source: https://github.com/jrproal/jax_tutorial/blob/b4ffe20e85aa9cc866e0347d182632882db54a2a/04_functional_patterns.py
# observed on jax 0.10.2 CPU: after two calls of jit_bad_energy the global counter is 1, not 2:
#   `counter += 1` runs once, while jit traces; bad_gravitational_force prints "Computing
#   force for r=JitTracer(~float32[])" on its first call only, never with the value of r, and not on
#   later calls. Kept: the notebook's "Common Mistake #1" and "#2" cells as written (the
#   tutorial shows both as mistakes); the in-place mutation cell, which raises inside its
#   own try/except, and the device prints are left out; the __main__ block is added.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from jax import jit, grad, vmap

# ❌ BAD: Using global mutable state
counter = 0

def bad_compute_energy(mass, velocity):
    global counter
    counter += 1  # Side effect!  # expect: JIT202  # tolerate: JIT201
    return 0.5 * mass * velocity**2

# This will not work as expected with JIT
jit_bad_energy = jit(bad_compute_energy)

print("Before JIT calls, counter:", counter)
result1 = jit_bad_energy(1.0, 2.0)
result2 = jit_bad_energy(1.0, 3.0)
print("After 2 JIT calls, counter:", counter)  # Counter only incremented once during tracing!


# ✅ GOOD: Pure function without side effects
def good_compute_energy(mass, velocity):
    return 0.5 * mass * velocity**2

jit_good_energy = jit(good_compute_energy)

result1 = jit_good_energy(1.0, 2.0)
result2 = jit_good_energy(1.0, 3.0)
print(f"Energy 1: {result1:.2f}, Energy 2: {result2:.2f}")


# ❌ BAD: Regular print inside JIT
@jit
def bad_gravitational_force(m1, m2, r):
    G = 6.674e-11  # Gravitational constant
    print(f"Computing force for r={r}")  # Only prints during tracing!  # expect: JIT203
    return G * m1 * m2 / r**2

print("First call:")
f1 = bad_gravitational_force(1e30, 1e30, 1e11)
print("\nSecond call:")
f2 = bad_gravitational_force(1e30, 1e30, 2e11)  # No print output!

if __name__ == "__main__":
    import contextlib
    import io

    # observed: line 18 ran once for the two calls: counter is 1, not 2
    assert counter == 1, counter
    jit_bad_energy(2.0, 5.0)
    assert counter == 1, counter
    # observed: line 45 prints nothing on a later call with a new r
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        f3 = bad_gravitational_force(1e30, 1e30, 3e11)
    assert buf.getvalue() == "", buf.getvalue()
