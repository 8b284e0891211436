# source: https://github.com/TheodoraChrysoula/sbi/blob/5bfc3ba1c7e46673f3e4dffd0e011efee26835e0/src/models/abc.py
#   (abc_jax, with prior_jax and simulator_jax of src/simulators.py and the JAX cell of
#   notebooks/SBI_examples.ipynb at the same commit: rejection ABC for a linear simulator)
# observed on jax 0.10.2 CPU: abc_jax splits `key` into one key per simulation and hands the
#   same `keys` to the vmapped prior and to the vmapped simulator, so every simulation's noise
#   is drawn from the bits that drew its theta: the noise is a monotone function of theta[0]
#   (rank correlation 1.0 over the 10,000 simulations, about 0 with a fresh key). The notebook
#   cell draws the fixed input `x` from `key` and then hands the same `key` to abc_jax, whose
#   split turns it into the simulation keys: the bits of x[i] are the XOR of the two words of
#   simulation key i. JAX's key-reuse checker (typed keys) names the split in abc_jax
#   (line 53) for the call's reuse and simulator_jax's draw (line 32) for the vmapped one,
#   both tolerated as the innermost frames of the labelled bugs.
#   Kept: abc_jax, prior_jax and simulator_jax, and the notebook's JAX
#   cell as module-level code (its `from simulators import ...`/`from models.abc import ...`
#   lines dropped). Left out: the NumPy rejection samplers (abc_inference, abc_method1/2),
#   the NumPy prior and simulators, and the plotting cells. Added: the __main__ block, which
#   replays abc_jax's draws to read them back.
# gap: other
import jax
import jax.numpy as jnp
from jax import random


def prior_jax(N, dim, key):
    return random.uniform(key, shape=(N,dim), minval=-2, maxval=2, dtype=jnp.float32)


def simulator_jax(theta, x, key):
    # Compute the mean
    means = jnp.dot(theta, x)
    sigma = jnp.sqrt(0.01)
    return means + sigma*random.normal(key)  # tolerate: JIT502


def abc_jax(N, Nsamples, simulator_func, prior, dim, x, obs, key):
    """
    Perfom Approximate Bayesian Computation 
    Parameters:
    - N: int, the number of accepted samples,
    - Nsamples: int, the number of generated samples,
    - simulation_func: function, generates simulated data given parameters,
    - prior: callable: generates samples from the prior,
    - dim: int, dimensions of the parameter space,
    - x: ndarray, fixed variable,
    - obs: array, the true observed data for comparison
    - key: intialize key for random generation
    
    Returns:
    - samples_pos: array, best N accepted samples
    """

    # Split the keys into Nsamples subkeys
    keys = random.split(key, Nsamples)  # tolerate: JIT502

    # Generate Nsamples samples from the prior
    thetas = jax.vmap(lambda k: prior(1, dim, k).squeeze())(keys)

    # Simulated data for each sampled theta
    sim_data = jax.vmap(lambda theta, k: simulator_func(theta, x, k))(thetas, keys)  # expect: JIT502

    # Calculate the distances
    distances = jnp.abs(obs-sim_data)

    # Get the indices of the smallest distances
    best_indices = jnp.argsort(distances)[:N]

    # Select the corresponding best thetas on sorted indices
    samples_pos = thetas[best_indices]

    return samples_pos


# ---- notebooks/SBI_examples.ipynb, the JAX cell ----
key = random.PRNGKey(42)
N = 100
Nsamples = 10000
dim = 2
x = random.uniform(key, shape=(dim,), minval=-0.5, maxval=0.5, dtype=jnp.float32)
print(f"X fixed value is: {x}")
obs = 0.3
simulator_func = simulator_jax

samples_pos_jax = abc_jax(N, Nsamples, simulator_func, prior_jax, dim, x, obs, key)  # expect: JIT502

print (f" The number of posterior samples 1 is : {samples_pos_jax.shape[0]}\n")
print(f"The mean value of posterior 1 is : {samples_pos_jax.mean(axis=0)}\n")
print(f"The standard deviation of posterior 1 is : {samples_pos_jax.std(axis=0)}")


if __name__ == "__main__":
    import numpy as np

    def ranks(a):
        return np.argsort(np.argsort(np.asarray(a)))

    def spearman(a, b):
        return float(np.corrcoef(ranks(a), ranks(b))[0, 1])

    # abc_jax's draws replayed: the same split, prior and simulator as lines 53-59
    keys = random.split(key, Nsamples)  # tolerate: JIT502
    words = np.asarray(random.key_data(keys))[:dim].astype(np.uint32)
    thetas = jax.vmap(lambda k: prior_jax(1, dim, k).squeeze())(keys)
    sim_data = jax.vmap(lambda theta, k: simulator_jax(theta, x, k))(thetas, keys)  # tolerate: JIT502
    noise = np.asarray(sim_data) - np.asarray(thetas) @ np.asarray(x)

    # observed: line 59 draws each simulation's noise from the key that drew its theta: the
    # noise is a monotone function of theta[0] (rank correlation 1), with a fresh key it is not
    rho = spearman(thetas[:, 0], noise)
    assert rho > 0.999, rho
    fresh = jax.vmap(lambda theta, k: simulator_jax(theta, x, k))(
        thetas, random.split(random.PRNGKey(7), Nsamples))
    rho_fresh = spearman(thetas[:, 0], np.asarray(fresh) - np.asarray(thetas) @ np.asarray(x))
    assert abs(rho_fresh) < 0.05, rho_fresh

    # observed: line 83 hands abc_jax the key that drew x: the bits of x[i] are the XOR of
    # the two words of simulation key i (x is made from the first two simulations' keys)
    bits = words[:, 0] ^ words[:, 1]
    u = ((bits >> np.uint32(9)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)
    assert np.allclose(u - np.float32(0.5), np.asarray(x), atol=1e-7), (u - 0.5, x)
    print("ok")
