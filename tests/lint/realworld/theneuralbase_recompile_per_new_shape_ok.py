# source: https://theneuralbase.com/jax/learn/beginner/jit-recompilation-shape-changes/
#   (the page's code example, up to where the page is cut off, in its third call)
# observed on jax 0.10.2 CPU: runs clean; add_one compiles once for float32[5], reuses that
#   executable for the second (5,) array, and compiles again for the (3,) array, as the
#   page explains: a new input shape is a new cache entry, not a bug. The third call's
#   argument is cut off on the page; the stand-in is a three-element array, the shape the
#   page's heading names. Added: that argument and the __main__ block.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import time
@jax.jit
def add_one(x):
    return x + 1
print("=== First shape: (5,) ===")
start = time.perf_counter()
result1 = add_one(jnp.array([1.0, 2.0, 3.0, 4.0, 5.0]))
first_compile_time = time.perf_counter() - start
print(f"Result: {result1}")
print(f"Time (includes compilation): {first_compile_time * 1000:.3f} ms")
print("\n=== Same shape again: (5,) ===")
start = time.perf_counter()
result2 = add_one(jnp.array([10.0, 20.0, 30.0, 40.0, 50.0]))
same_shape_time = time.perf_counter() - start
print(f"Result: {result2}")
print(f"Time (reuses compiled code): {same_shape_time * 1000:.3f} ms")
print("\n=== Different shape: (3,) — RECOMPILATION ===")
start = time.perf_counter()
result3 = add_one(jnp.array([1.0, 2.0, 3.0]))

if __name__ == "__main__":
    assert add_one._cache_size() == 2
    assert jnp.array_equal(result3, jnp.array([2.0, 3.0, 4.0]))
