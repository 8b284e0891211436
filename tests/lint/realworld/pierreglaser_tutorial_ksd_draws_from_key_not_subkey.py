# source: https://github.com/pierreglaser/jax-tutorial/blob/071c923c082e8dbd7aea54b220052283dc3dbe9d/tutorial_with_solutions.ipynb
#   (a JAX tutorial notebook with its solutions: a Stein kernel discrepancy (KSD) built
#   with grad, jacobian and vmap, then jax.random; code cells 5, 7, 47-52, 68 and 70, in
#   order, marked by their cell numbers; the matplotlib cells are left out)
# observed on jax 0.10.2 CPU: cell 68 draws x1 from subkey, draws x1_same from the same
#   subkey to show the draws are equal, and then, where its comment says it is left with
#   "an untouched new key", splits the consumed subkey instead of key. Cell 70 splits key
#   into key and subkey on every iteration and then draws X from `key`, the half it will
#   split again on the next iteration, leaving subkey unused: every X comes from a key
#   that is consumed twice. With jax.debug_key_reuse on (typed keys) the second draw, the
#   split of subkey and the next iteration's split each raise KeyReuseError (replayed in
#   __main__). jit(ksd) in the loop is the same function each time: it compiles once per
#   sample size. Added: the __main__ block.
# gap: other
# ---- cell 5
import numpy as np

import jax
import jax.numpy as jnp
from jax import jit, grad, vmap

# ---- cell 7
def gaussian_kernel(x, y):
    sigma = 2
    z = x - y
    return jnp.exp(-jnp.sum(jnp.square(z)) / sigma ** 2)

# ---- cell 47
def p(x):
    return jnp.exp(-0.5 * jnp.sum(jnp.square(x))) #  unnormalized standard normal density

s = ...  # compute the score function

# ---- cell 48
# Solution
s = grad(lambda x: jnp.log(p(x)))

# ---- cell 49
# You will need the jacobian function transformation of jax, which computes the jacobian of a vector-valued function
from jax import jacobian

# ---- cell 50
def stein_kernel(x, y):
    k = gaussian_kernel
    term_1 = jnp.dot(s(x), s(y)) * k(x, y)
    term_2 = jnp.dot(s(x), grad(k, argnums=1)(x, y))
    term_3 = jnp.dot(grad(k, argnums=0)(x, y), s(y))
    
    # Solution
    term_4 = jnp.trace(jacobian(grad(k, argnums=1), argnums=0)(x, y))
    
    return term_1 + term_2 + term_3 + term_4

# ---- cell 51
def compute_gram_matrix_stein_kernel(X):
    return vmap(vmap(stein_kernel, in_axes=(None, 0)), in_axes=(0, None))(X, X)

# ---- cell 52
def ksd(X):
    N = X.shape[0]
    return jnp.sqrt(jnp.sum(compute_gram_matrix_stein_kernel(X)) / (N **2))

# ---- cell 68
from jax import random
key = random.PRNGKey(42)

key, subkey = random.split(key)
# provide a one-shot "RandomState"-like subkey to generate a random variable.
x1 = random.normal(subkey)

# From now on, subkey cannot be used since it was used to generate randomness in random.normal
x1_same = random.normal(subkey)  # expect: JIT502
assert x1_same == x1

# You're left with an "untouched" new key that can be split to generate new randomness
key, subkey = random.split(subkey)  # expect: JIT502

x2 = random.normal(subkey)
assert x2 != x1

# ---- cell 70
from jax import random

sample_sizes = (50, 100, 200, 300, 500, 1000, 2000, 5000)

key = random.PRNGKey(0)

ksd_vals = []
for N in sample_sizes:
    ksd_vals_this_iter = []
    for rs in range(5):
        key, subkey = random.split(key)  # tolerate: JIT502
        X = jax.random.normal(key, (N, 2))  # expect: JIT502
        ksd_vals_this_iter.append(jit(ksd)(jnp.array(X)))
    ksd_vals.append(jnp.mean(jnp.array(ksd_vals_this_iter)))


if __name__ == "__main__":
    # observed: line 72 draws again from subkey: the same number as x1
    assert x1_same == x1
    assert len(ksd_vals) == len(sample_sizes)

    def raises_key_reuse(call):
        with jax.debug_key_reuse(True):
            try:
                call()
            except jax.errors.KeyReuseError:
                return True
        return False

    def replay_cell_68():
        key, subkey = random.split(random.key(42))
        random.normal(subkey)
        random.split(subkey)  # tolerate: JIT502

    def replay_cell_70():
        key = random.key(0)
        key, subkey = random.split(key)
        jax.random.normal(key, (50, 2))  # tolerate: JIT502
        key, subkey = random.split(key)  # tolerate: JIT502

    # observed: line 76 splits the subkey random.normal consumed: KeyReuseError
    assert raises_key_reuse(replay_cell_68)
    # observed: line 93 draws X from the key the next iteration splits: KeyReuseError
    assert raises_key_reuse(replay_cell_70)
