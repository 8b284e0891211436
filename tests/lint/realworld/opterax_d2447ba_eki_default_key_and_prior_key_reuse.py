# source: https://github.com/bischtob/Opterax/blob/d2447ba4d0ac9321f6cbd664a21ee7f0284544a8/examples/loss_minimization_eki.py
# observed on jax 0.10.2 CPU: the ensemble Kalman inversion example draws the synthetic
#   observation noise from `key` and then the prior ensemble from the same `key` (line 75: the
#   first prior draw is the standard normal the observation noise was scaled from), and
#   update_ensemble's key defaults to rnd.PRNGKey(0), evaluated once when the function is
#   defined, so each of the 20 EKI iterations of the loop (line 80) perturbs the observations
#   with the identical noise vector, which is again the draw of PRNGKey(0) that `key` made.
# gap: other
# (kept as written; trimmed: the plotting part after the loop (matplotlib windows) and the
#  unused `import time`; added: the observation checks at the end of the __main__ block)
import jax
import jax.numpy as jnp

from jax import random as rnd

# Update follows eqns. (4) and (5) of Schillings and Stuart (2017)
def update_ensemble(u, g, obs_mean, obs_noise_cov, dt=1.0, deterministic=True, key=rnd.PRNGKey(0)):
    # u: N_par × N_ens, g: N_obs × N_ens
    N_ens = u.shape[1]
    N_obs = g.shape[0]

    # means and covariances
    u_mean = jnp.mean(u, axis=1)
    g_mean = jnp.mean(g, axis=1)
    du = (u.T - u_mean).T
    dg = (g.T - g_mean).T
    cov_ug = jnp.matmul(du, dg.T) # N_par × N_obs
    cov_gg = jnp.matmul(dg, dg.T) # N_obs × N_obs

    # scale noise using Δt
    scaled_obs_noise_cov = obs_noise_cov / dt # N_obs × N_obs
    noise = rnd.normal(key, (N_obs, N_ens))  # tolerate: JIT502

    # add obs_mean (N_obs) to each column of noise (N_obs × N_ens) if
    # G is deterministic
    y = obs_mean + noise if deterministic else jnp.repeat(obs_mean, N_ens, axis=1)

    # update step
    # N_obs × N_obs \ [N_obs × N_ens] --> tmp is [N_obs × N_ens]
    tmp = jnp.matmul(jnp.linalg.inv(cov_gg + scaled_obs_noise_cov), y - g)
    u_updated = u + jnp.matmul(cov_ug, tmp) # [N_par × N_ens]

    return u_updated

if __name__ == "__main__":
    # rng for reproducibility
    key = rnd.PRNGKey(0)

    # set up observational noise
    n_obs = 1  # Number of synthetic observations from G(u)
    noise_level = 1e-8  # Defining the observation noise level
    obs_noise_cov = noise_level * jnp.eye(n_obs)
    noise = rnd.multivariate_normal(key, jnp.zeros((n_obs, 1)), obs_noise_cov)

    # set up the loss function (unique minimum)
    @jax.jit
    def objective(u):
        du = u - jnp.array([1.0, -1.0])
        return jnp.linalg.norm(du)
    u_star = jnp.array([1.0, -1.0])  # Loss Function Minimum
    obs_mean = objective(u_star) + noise
    vobjective = jax.vmap(objective, in_axes=1)

    # set up prior
    n_par = len(u_star)
    prior_mean = jnp.zeros(n_par)
    prior_cov = jnp.eye(n_par)
    prior = rnd.multivariate_normal

    # TODO!: Here we would set up an instance of an optimizer object

    # do optimization loop
    n_ens = 50 # number of ensemble members
    n_iter = 20 # number of EKI iterations
    ensemble = prior(key, prior_mean, prior_cov, (n_ens,)).T  # expect: JIT502
    storage_g = []
    storage_u = [ensemble.copy()]
    for i in range(n_iter):
        evaluations = jnp.expand_dims(vobjective(ensemble).T, axis=0)
        ensemble = update_ensemble(ensemble, evaluations, obs_mean, obs_noise_cov)  # expect: JIT502
        storage_u.append(ensemble.copy())
        storage_g.append(evaluations.copy())

    # ---- observation checks (added) ----
    # observed: line 75 the prior ensemble's first draw is the standard normal that the observation noise was made from (noise = 1e-4 * z)
    z = rnd.normal(key, (n_obs, 1))  # tolerate: JIT502
    print("obs noise / 1e-4:", float(noise[0, 0] / 1e-4), "first prior draw:", float(storage_u[0][0, 0]))
    assert jnp.allclose(noise[0, 0], 1e-4 * z[0, 0], rtol=1e-4)
    assert jnp.allclose(storage_u[0][0, 0], z[0, 0], rtol=1e-5)

    # observed: line 80 every iteration's perturbation is rnd.normal(PRNGKey(0)): the same vector each call, and the same draws as `key`'s
    default_key = update_ensemble.__defaults__[-1]
    assert (rnd.key_data(default_key) == rnd.key_data(key)).all()
    u0, g0 = storage_u[5], storage_g[5]
    a = update_ensemble(u0, g0, obs_mean, obs_noise_cov)  # tolerate: JIT502
    b = update_ensemble(u0, g0, obs_mean, obs_noise_cov)  # tolerate: JIT502
    fresh = update_ensemble(u0, g0, obs_mean, obs_noise_cov, key=rnd.PRNGKey(7))
    assert (a == b).all()
    assert not jnp.allclose(a, fresh)
    assert (rnd.normal(default_key, (n_obs, n_ens)) == rnd.normal(key, (n_obs, n_ens))).all()  # tolerate: JIT502
    print("OK: prior drawn from the noise key; identical EKI perturbations in every iteration")
