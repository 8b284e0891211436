# source: https://github.com/ssghost/JITS_tests/blob/49eec852d8b824cdd849f65f1794f882db8cbadb/jax-jit.py
# observed on jax 0.10.2 CPU: the "redesign jax" commit moves the sample count ln into the jitted Monte Carlo pi
#   estimator as an argument, so jit traces it and random.uniform's shape=(ln,) holds a tracer: the call raises
#   TypeError (shapes must be concrete) at the random_x line; random_y's shape and jnp.ones((ln,))/jnp.zeros((ln,)) in the
#   return would fail the same way (repeats hidden by the raise). The previous commit drew the samples outside jit.
# (a repository comparing Python JIT compilers on one Monte Carlo estimate of pi; the file is unchanged, its own
#   __main__ included: the error comes before any sample is drawn, so ln = 1e9 allocates nothing)
# gap: omnistaging
import jax
import jax.numpy as jnp

@jax.jit
def monte_carlo_pi(ln: int):
    keyx = jax.random.PRNGKey(111111)
    keyy = jax.random.PRNGKey(222222) 
    random_x = jax.random.uniform(keyx, shape=(ln,))  # expect: JIT404
    random_y = jax.random.uniform(keyy, shape=(ln,))  # tolerate: JIT404
    return 4.0 * jnp.sum(jnp.where((random_x**2 + random_y**2 < 1.0), jnp.ones((ln,)), jnp.zeros((ln,))))/ ln  # tolerate: JIT404


if __name__ == "__main__":
    print(monte_carlo_pi(1000000000))
