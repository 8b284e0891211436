# source: https://theneuralbase.com/jax/learn/beginner/what-jit-compiles-xla-computation/
#   (the tutorial's code; its last print lines, cut off in the stored page, are left out.
#   Added: the __main__ block.)
# observed on jax 0.10.2 CPU: the Python loop in slow_function is unrolled when jit traces
#   it: the traced program holds 1000 copies of sin, multiply and add (3000 equations), all
#   compiled on the first call of jit_function, which the timing loop counts.
# gap: other
import jax
import jax.numpy as jnp
def slow_function(x):
    result = 0.0
    for i in range(1000):  # expect: JIT303
        result = result + jnp.sin(x) * 0.001
    return result
jit_function = jax.jit(slow_function)
x = jnp.array(3.14)
import time
start = time.perf_counter()
for _ in range(100):
    slow_function(x)
end = time.perf_counter()
python_time = end - start
start = time.perf_counter()
for _ in range(100):
    jit_function(x)
end = time.perf_counter()
jit_time = end - start
print(f"Python loop time: {python_time:.4f}s")


if __name__ == "__main__":
    jaxpr = jax.make_jaxpr(slow_function)(x).jaxpr
    sins = [e for e in jaxpr.eqns if e.primitive.name == "sin"]
    # observed: line 12 unrolls into 1000 sin calls (3000 equations) in the traced program
    assert len(sins) == 1000 and len(jaxpr.eqns) >= 3000, len(jaxpr.eqns)
