# source: https://github.com/AntoineLuciano/ABC-SBI/blob/c6749e282fbdc5a59e0c60bbd994e2c00da2749d/functions/simulation.py
#   (the ABC simulation functions of an ABC + neural ratio estimation project: rejection ABC
#   per particle in a jitted lax.while_loop, vmapped over particles, an adaptive epsilon and
#   the classifier's dataset of joint and shuffled pairs)
# observed on jax 0.10.2 CPU: runs clean. ABC_single splits its carried key into a new key,
#   a prior key and a data key on every proposal; ABC_epsilon gives each particle its own key
#   and returns an unused one; get_epsilon_star and get_dataset split before each draw (JAX's
#   key-reuse checker, typed keys, reports nothing). Every accepted particle lies within
#   epsilon; ABC_epsilon is traced once per (n_points, epsilon) static pair, as its
#   static_argnums ask: two calls with the same epsilon trace once. The file is kept whole
#   (the commented-out get_newdataset included). Added: a Gaussian prior, a Gaussian
#   simulator of 10 observations and a discrepancy on their means (the project's model
#   files are elsewhere), and the __main__ block that runs the three entry points.
# gap: other
from jax import random, jit, vmap, lax
import jax.numpy as jnp

def ABC_single(key, prior_simulator, data_simulator, discrepancy, epsilon, true_data):
    def cond_fun(val):
        _, _, _, dist = val
        return dist >= epsilon
    
    def body_fun(val):
        key, z, theta, dist = val
        key, key_theta, key_data = random.split(key, 3)
        theta_prop = prior_simulator(key_theta)
        data_prop = data_simulator(key_data, theta_prop)
        dist = discrepancy(data_prop, true_data)
        return key, data_prop, theta_prop, dist 
    
    key, key_theta = random.split(key)
    fake_theta = prior_simulator(key_theta)
    fake_data = jnp.zeros_like(true_data).astype(float)
    key, data, theta, dist = lax.while_loop(cond_fun, body_fun, (key, fake_data, fake_theta, epsilon+1))
    return data, theta, dist


ABC_single = jit(ABC_single, static_argnums=(1,2,3))

def ABC_epsilon(key, n_points, prior_simulator, data_simulator, discrepancy, epsilon, true_data):
    keys = random.split(key, n_points+1)   
    datas, thetas, dists = vmap(ABC_single, in_axes=(0, None, None, None, None, None))(keys[1:], prior_simulator, data_simulator, discrepancy, epsilon, true_data)
    return datas, thetas, dists, keys[0]

ABC_epsilon = jit(ABC_epsilon, static_argnums=(1,2,3,4,5))

def get_epsilon_star(key, acceptance_rate, n_points, prior_simulator, data_simulator, discrepancy, true_data, quantile_rate = .9, epsilon = jnp.inf, return_accept = False):
    new_epsilon = epsilon
    accept = 1.
    datas, thetas, dists, key = ABC_epsilon(key, n_points, prior_simulator, data_simulator, discrepancy, epsilon, true_data)
    if epsilon == jnp.inf:
        print("Distances: min = ", jnp.min(dists), "max = ", jnp.max(dists), "mean = ", jnp.mean(dists), "std = ", jnp.std(dists))
    while accept > acceptance_rate:
        epsilon = new_epsilon
        new_epsilon = float(jnp.quantile(dists, quantile_rate))
        datas, thetas, dists, key = ABC_epsilon(key, n_points, prior_simulator, data_simulator, discrepancy, new_epsilon, true_data)
        key, subkey = random.split(key)
        keys_pred = random.split(subkey, n_points)
        datas_pred = vmap(data_simulator, in_axes=(0, 0))(keys_pred, thetas)
        new_dists = vmap(discrepancy, in_axes=(0, None))(datas_pred, true_data)
        accept = jnp.mean(new_dists < new_epsilon)
        epsilon = new_epsilon
        print("epsilon: ", epsilon, "acceptance rate: ", accept)
    if return_accept: 
        return epsilon, accept, key
    return epsilon, key

def get_dataset(key, n_points, prior_simulator, data_simulator, discrepancy, epsilon, true_data):
    n_points = n_points//2
    zs, thetas, _, key = ABC_epsilon(key, n_points, prior_simulator, data_simulator, discrepancy, epsilon, true_data)
    key, key_perm = random.split(key)
    thetas_prime = thetas[random.permutation(key_perm, thetas.shape[0])]
    zs = jnp.concatenate([zs, zs], axis=0)
    thetas = jnp.concatenate([thetas, thetas_prime], axis=0)
    ys = jnp.append(jnp.zeros(n_points), jnp.ones(n_points)).astype(int)
    Xs = jnp.concatenate([thetas, zs], axis=1)
    return Xs, ys, key

# def get_newdataset(key, n_points, prior_simulator, data_simulator, discrepancy, epsilon, true_data):
#     n_points = n_points//2
#     zs0, thetas0, _, key = ABC_epsilon(key, n_points, prior_simulator, data_simulator, discrepancy, epsilon, true_data)
#     key, subkey = random.split(key)
#     thetas1 = vmap(prior_simulator)(random.split(subkey, n_points))
#     zs = jnp.concatenate([zs0, zs0], axis=0)
#     thetas = jnp.concatenate([thetas0, thetas1], axis=0)
#     ys = jnp.append(jnp.zeros(n_points), jnp.ones(n_points)).astype(int)
#     Xs = jnp.concatenate([thetas, zs], axis=1)
#     return Xs, ys, key


# ---- added: a Gaussian model (stand-ins for the project's simulators) ----
N_OBS = 10


def prior_simulator(key):
    return random.normal(key, (1,)) * 3.0


def data_simulator(key, theta):
    return theta + random.normal(key, (N_OBS,))


def discrepancy(data, true_data):
    return jnp.abs(jnp.mean(data) - jnp.mean(true_data))


if __name__ == "__main__":
    import jax

    traces = []
    jax.monitoring.register_event_listener(
        lambda event, **kw: traces.append(event) if event == "/jax/core/compile/tracing" else None)
    key = random.PRNGKey(0)
    key, key_true = random.split(key)
    true_data = 1.5 + random.normal(key_true, (N_OBS,))

    epsilon, key = get_epsilon_star(key, 0.8, 200, prior_simulator, data_simulator, discrepancy, true_data, quantile_rate=.5)
    assert 0.0 < epsilon < 10.0, epsilon

    datas, thetas, dists, key = ABC_epsilon(key, 200, prior_simulator, data_simulator, discrepancy, epsilon, true_data)
    assert bool(jnp.all(dists < epsilon)), dists.max()
    assert thetas.shape == (200, 1) and datas.shape == (200, N_OBS)
    assert len(set(map(float, thetas[:, 0]))) == 200  # every particle has its own draws
    n_before = len(traces)
    Xs, ys, key = get_dataset(key, 400, prior_simulator, data_simulator, discrepancy, epsilon, true_data)
    assert Xs.shape == (400, 1 + N_OBS) and int(ys.sum()) == 200
    Xs2, _, _ = get_dataset(key, 400, prior_simulator, data_simulator, discrepancy, epsilon, true_data)
    assert not bool(jnp.all(Xs == Xs2))
    assert len(traces) == n_before, traces[n_before:]  # same (n_points, epsilon): no new trace
    print("ok", epsilon, float(thetas.mean()))
