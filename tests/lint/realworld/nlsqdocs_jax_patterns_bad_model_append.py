# source: https://nlsq.readthedocs.io/en/stable/_sources/tutorials/advanced/architecture/jax_patterns.rst.txt
#   (section "Pure Functions", the "Wrong - side effect (modifies global)" model)
# observed on jax 0.10.2 CPU: NLSQ jit-compiles model functions; under jax.jit (used here
#   in place of NLSQ's internal compilation) `results.append(a)` runs once, at trace time,
#   and stores a tracer in the module-level list; later calls append nothing. Added:
#   imports and the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

# Wrong - side effect (modifies global)
results = []
def bad_model(x, a, b):
    results.append(a)  # Side effect!  # expect: JIT202
    return a * jnp.exp(-b * x)

# Correct - pure function
def good_model(x, a, b):
    return a * jnp.exp(-b * x)


if __name__ == "__main__":
    x = jnp.linspace(0.0, 1.0, 5)
    f = jax.jit(bad_model)
    f(x, 2.0, 0.5)
    f(x, 3.0, 0.5)
    # observed: line 14 appends once, at trace time, and what it stores is a tracer
    assert len(results) == 1
    assert isinstance(results[0], jax.core.Tracer)
    print(jax.jit(good_model)(x, 2.0, 0.5))
