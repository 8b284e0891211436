# source: https://github.com/QuantEcon/lecture-jax/blob/af1c828c92bdea21be28370b800a4f9df8cb4af2/lectures/inventory_dynamics.md
#   (QuantEcon's "Inventory Dynamics" JAX lecture as of June 2023; both mistakes below were
#   fixed in https://github.com/QuantEcon/lecture-jax/pull/313, which splits the key before
#   each draw and drops the key from update_stock's results)
# observed on jax 0.10.2 CPU: shift_firms_forward draws Z from `key` and then splits that
#   same key to get the next one: with `jax_debug_key_reuse` on and a typed key
#   (`random.key(10)`), line 47 raises KeyReuseError "Previously-consumed key passed to
#   random_split" on the first iteration. The jitted update_stock returns the module-level
#   `key`, which its trace read once (PRNGKey(27), the value when compute_freq first ran):
#   after `key = random.PRNGKey(0)` and another compute_freq call, update_stock still hands
#   back PRNGKey(27), so every draw after the first comes from fold_in(PRNGKey(27), i)
#   whatever key compute_freq was given. The plotting cells (matplotlib, scikit-learn's
#   KernelDensity) are left out and `%time` is dropped from the calls; the rest is the
#   lecture's code in its order. The __main__ block is added.
# gap: stale-state-attributes
import numpy as np
import jax
import jax.numpy as jnp
from jax import random, lax
from collections import namedtuple

Firm = namedtuple('Firm', ['s', 'S', 'mu', 'sigma'])

firm = Firm(s=10, S=100, mu=1.0, sigma=0.5)

# Define a jit-compiled function to update X and key
@jax.jit
def update_X(X, firm, D):
    # Restock if the inventory is below the threshold
    res = jnp.where(X <= firm.s,
            jnp.maximum(firm.S - D, 0),
            jnp.maximum(X - D, 0))
    return res


def shift_firms_forward(x_init, firm, sample_dates, 
                        key, num_firms=50_000, sim_length=750):
    
    X = res = jnp.full((num_firms, ), x_init)

    # Use for loop to update X and collect samples
    for i in range(sim_length):
        Z = random.normal(key, shape=(num_firms, ))
        D = jnp.exp(firm.mu + firm.sigma * Z)
        
        X = update_X(X, firm, D)
        _, key = random.split(key)  # expect: JIT502
        
        # draw a sample at the sample dates
        if (i+1 in sample_dates):
          res = jnp.vstack((res, X))

    return res[1:]

x_init = 50
num_firms = 50_000
sample_dates = 10, 50, 250, 500, 750
key = random.PRNGKey(10)

X = shift_firms_forward(x_init, firm, \
                              sample_dates, key).block_until_ready()

@jax.jit
def shift_firms_forward(x_init, firm, key,
                        num_firms=50_000, sim_length=750):
    
    s, S, mu, sigma = firm.s, firm.S, firm.mu, firm.sigma
    X = jnp.full((num_firms, ), x_init)
    Z = random.normal(key, shape=(sim_length, num_firms))
    D = jnp.exp(mu + sigma * Z)
    
    # Define the function for each update
    def update_X(X, D):
        res = jnp.where(X <= s, 
                  jnp.maximum(S - D, 0), 
                  jnp.maximum(X - D, 0))
        return res, res

    # Use lax.scan to perform the calculations on all states
    _, X_final = lax.scan(update_X, X, D)

    return X_final

X = shift_firms_forward(x_init, firm, key).block_until_ready()

x_init = 20.0

X = shift_firms_forward(x_init, firm, key).block_until_ready()

# Define a jitted function for each update
@jax.jit
def update_stock(n_restock, X, firm, D):
  n_restock = jnp.where(X <= firm.s,
                        n_restock + 1,
                        n_restock)
  X = jnp.where(X <= firm.s,
                jnp.maximum(firm.S - D, 0),
                jnp.maximum(X - D, 0))
  return n_restock, X, key  # expect: JIT201

def compute_freq(firm, key, 
                 x_init=70, 
                 sim_length=50, 
                 num_firms=1_000_000):
    
    # Prepare initial arrays
    X = jnp.full((num_firms, ), x_init)

    # Stack the restock counter on top of the inventory
    n_restock = jnp.zeros((num_firms, ))

    # Use a for loop to perform the calculations on all states
    for i in range(sim_length):
        Z = random.normal(key, shape=(num_firms, ))
        D = jnp.exp(firm.mu + firm.sigma * Z)
        n_restock, X, key = update_stock(
            n_restock, X, firm, D)
        key = random.fold_in(key, i)
        
    return jnp.mean(n_restock > 1, axis=0)

key = random.PRNGKey(27)
freq = compute_freq(firm, key).block_until_ready()
print(f"Frequency of at least two stock outs = {freq}")

if __name__ == "__main__":
    import traceback

    # observed: line 99 returns the global key its trace read: after the global is
    # rebound, update_stock still hands back PRNGKey(27)
    key = random.PRNGKey(0)
    freq = compute_freq(firm, key).block_until_ready()
    zeros = jnp.zeros((1_000_000, ))  # the shapes and dtypes compute_freq gives it
    _, _, returned = update_stock(zeros, zeros, firm, zeros)
    assert (returned == random.PRNGKey(27)).all() and not (returned == key).all()

    # observed: line 47 splits the key that random.normal just consumed
    # (the lecture's lax.scan version rebinds the name, so the loop version is compiled
    # again from this file, keeping its line numbers)
    import ast
    tree = ast.parse(open(__file__).read())
    loop_def = next(n for n in tree.body
                    if isinstance(n, ast.FunctionDef) and n.name == "shift_firms_forward")
    namespace = dict(globals())
    exec(compile(ast.Module(body=[loop_def], type_ignores=[]), __file__, "exec"), namespace)
    jax.config.update("jax_debug_key_reuse", True)
    try:
        namespace["shift_firms_forward"](50, firm, sample_dates, random.key(10))
    except Exception as e:
        assert "Previously-consumed key passed to random_split" in str(e), e
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 47, frames
    else:
        raise AssertionError("no KeyReuseError")
