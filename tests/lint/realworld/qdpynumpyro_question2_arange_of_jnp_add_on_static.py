# source: https://github.com/srijaniiserprinceton/qdpy-numpyro/blob/8b5bdff024661f422cc8ddebefe2bc709c8a43f7/github_question_scripts/github_question_2.py
# observed on jax 0.10.2 CPU: the first call prints JitTracer(~int32[]) and then raises
#   ConcretizationTypeError in jnp.arange ("It arose in the jnp.arange argument 'start'"):
#   ell is static, but jnp.add(ell, 1) is staged under jit and returns a tracer, so the
#   bounds of jnp.arange are not concrete. The print is the authors' probe of what ell2 is
#   at trace time (it runs once, before the error) and is tolerated. Kept as written,
#   nothing added.
# gap: omnistaging
import jax
import jax.numpy as jnp

def func(ell):
    ell2 = jnp.add(ell, 1)
    print(ell2)  # tolerate: JIT203
    m_arr = jnp.arange(-ell2, ell2+1, dtype='int32')  # expect: JIT404
    return m_arr

# creating and compiling the jitted function
_func = jax.jit(func, static_argnums=(0,))
__ = _func(5).block_until_ready()

# running for different value of the static argument
for ell in range(1, 10):
    m_arr = _func(ell).block_until_ready()
    print(m_arr)
