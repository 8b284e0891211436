# source: https://theneuralbase.com/jax/learn/beginner/static-vs-dynamic-values/
#   (the lesson's code block, as far as the stored copy of the page shows it: the two
#   functions and "Example 1")
# observed on jax 0.10.2 CPU: repeat_array is decorated with plain @jax.jit although its
#   own comment says n "MUST be static": n arrives as a tracer and range(n) raises
#   TracerIntegerConversionError. The page's call of repeat_array (its "Example 2") is cut
#   off in the stored copy; the call at the end, with a two-element array and n=2, is added.
# gap: other
import jax
import jax.numpy as jnp

# DYNAMIC VALUE: changes between calls, flows through compiled code
@jax.jit
def sum_dynamic(x):
    return jnp.sum(x)

# STATIC VALUE: known at compile time, affects the compiled code itself
@jax.jit
def repeat_array(x, n: int):
    # n MUST be static because it controls Python-level loop structure
    result = x
    for i in range(n):  # expect: JIT104
        result = jnp.concatenate([result, x])
    return result

# Example 1: Dynamic values (shapes stay the same, data changes)
print("Example 1: Dynamic values")
result1 = sum_dynamic(jnp.array([1.0, 2.0, 3.0]))
print(f"sum_dynamic([1, 2, 3]) = {result1}")
result2 = sum_dynamic(jnp.array([10.0, 20.0, 30.0]))
print(f"sum_dynamic([10, 20, 30]) = {result2}")

print(repeat_array(jnp.array([1.0, 2.0]), 2))
