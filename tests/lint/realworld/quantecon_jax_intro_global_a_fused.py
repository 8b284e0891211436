# source: https://github.com/QuantEcon/lecture-python-programming.myst/blob/03a37af07f387874ed58af44afcb6280ef49c440/lectures/jax_intro.md
#   (QuantEcon's lecture "An Introduction to JAX", section "Functional Programming": the
#   lecture's illustration of an impure jitted function; its code cells in order)
# observed on jax 0.10.2 CPU: `f(x)` returns [2. 2.]; after `a = 42` the same call still
#   returns [2. 2.] (the global was fused in at trace time); only a new input shape retraces
#   and gives [43. 43. 43.].
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

a = 1  # global

@jax.jit
def f(x):
    return a + x  # expect: JIT201

x = jnp.ones(2)

f(x)

a = 42

f(x)

x = jnp.ones(3)

f(x)


if __name__ == "__main__":
    # observed: line 15 reads the global `a` at trace time: with a = 42 the compiled f still adds 1
    assert a == 42
    stale = f(jnp.ones(2))
    assert jnp.allclose(stale, 2.0), stale
    assert jnp.allclose(f(jnp.ones(3)), 43.0)
