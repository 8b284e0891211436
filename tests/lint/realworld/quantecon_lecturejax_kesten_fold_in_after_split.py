# source: https://github.com/QuantEcon/lecture-jax/blob/de5af653731d9a6b37ab192f07bf19ae848fa29f/lectures/kesten_processes.md
#   (QuantEcon's "Kesten Processes and Firm Dynamics" JAX lecture of May 2023, commit
#   de5af65 "improve based on feedbacks": the Python loop version and the lax.scan version
#   of the firm-size simulation)
# observed on jax 0.10.2 CPU: generate_draws splits `key` into three subkeys for the
#   iteration's shocks and then makes the next iteration's key with
#   random.fold_in(key, t) from the key it has just split: with threefry, fold_in(key, t)
#   for t = 0, 1, 2 is exactly split(key, 3)[t], so the key that seeds iteration 1 is the
#   subkey that drew a_random in iteration 0 (and iteration 2's is the one that drew
#   b_random in iteration 1, ...). The jitted update_s and generate_draws_lax run
#   correctly: jnp.where on the traced test, and generate_draws_lax's T and M keep their
#   Python defaults (jit traces only the arguments passed) where they give shapes.
# gap: other
# added: the imports of the lecture's first cell (quantecon and matplotlib left out with
#   the plotting cells and the GPU check); M's default is 1_000 instead of 1_000_000 in both
#   functions and T's 50 instead of 500 in generate_draws_lax (run time and memory); the
#   __main__ block, which records the keys given to random.split and random.normal.
import jax
import jax.numpy as jnp
from jax import random


@jax.jit
def update_s(s, s_bar, a_random, b_random, e_random):
    exp_a = jnp.exp(a_random)
    exp_b = jnp.exp(b_random)
    exp_e = jnp.exp(e_random)

    s = jnp.where(s < s_bar,
                  exp_e,
                  exp_a * s + exp_b)

    return s

def generate_draws(M = 1_000,
                   μ_a = -0.5,
                   σ_a = 0.1,
                   μ_b = 0.0,
                   σ_b = 0.5,
                   μ_e = 0.0,
                   σ_e = 0.5,
                   s_bar = 1.0,
                   T = 500,
                   s_init = 1.0,
                   seed=123):

    key = random.PRNGKey(seed)

    # Initialize the array of s values with the initial value
    s = jnp.full((M, ), s_init)

    # Perform updates on s for time t
    for t in range(T):
        keys = random.split(key, 3)
        a_random = μ_a + σ_a * random.normal(keys[0], (M, ))
        b_random = μ_b + σ_b * random.normal(keys[1], (M, ))
        e_random = μ_e + σ_e * random.normal(keys[2], (M, ))

        s = update_s(s, s_bar, a_random, b_random, e_random)
        
        # Generate new key for the next iteration
        key = random.fold_in(key, t)  # expect: JIT502

    return s


from jax import lax

@jax.jit
def generate_draws_lax(μ_a=-0.5,
                       σ_a=0.1,
                       μ_b=0.0,
                       σ_b=0.5,
                       μ_e=0.0,
                       σ_e=0.5,
                       s_bar=1.0,
                       T=50,
                       M=1_000,
                       s_init=1.0,
                       seed=123):

    key = random.PRNGKey(seed)
    keys = random.split(key, 3)
    
    # Generate random draws and initial values
    a_random = μ_a + σ_a * random.normal(keys[0], (T, M))
    b_random = μ_b + σ_b * random.normal(keys[1], (T, M))
    e_random = μ_e + σ_e * random.normal(keys[2], (T, M))
    s = jnp.full((M, ), s_init)

    # Define the function for each update
    def update_s(s, a_b_e_draws):
        a, b, e = a_b_e_draws
        s = jnp.where(s < s_bar,
                      jnp.exp(e),
                      jnp.exp(a) * s + jnp.exp(b))
        return s, None

    # Use lax.scan to perform the calculations on all states
    s_final, _ = lax.scan(update_s, s, (a_random, b_random, e_random))
    return s_final


if __name__ == "__main__":
    split_keys, normal_keys = [], []
    _split, _normal = random.split, random.normal

    def split(key, num=2):
        split_keys.append(key)
        return _split(key, num)

    def normal(key, shape=(), dtype=float):
        normal_keys.append(key)
        return _normal(key, shape, dtype)

    random.split, random.normal = split, normal
    data = generate_draws(T=3).block_until_ready()
    random.split, random.normal = _split, _normal
    assert data.shape == (1_000,)

    # observed: line 62 makes iteration 1's key equal to the subkey that drew a_random in
    #   iteration 0, and iteration 2's equal to the subkey that drew b_random in iteration 1
    assert bool(jnp.array_equal(split_keys[1], normal_keys[0]))
    assert bool(jnp.array_equal(split_keys[2], normal_keys[4]))

    data_lax = generate_draws_lax().block_until_ready()
    assert data_lax.shape == (1_000,) and bool(jnp.all(data_lax > 0))
