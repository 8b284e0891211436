# source: https://github.com/QuantEcon/lecture-jax/blob/4beb13a338007b24c20beb6bf7ba235d204ea560/lectures/markov_asset.md
#   (the lecture's memory-efficient JAX version of the stochastic-volatility model: `A`
#   as a linear operator and `sv_pd_ratio_linop` solved with bicgstab, both jitted with
#   the shapes static, as the lecture stood before commit e259dcd "Fix typos and np/jnp
#   issues" replaced its np.reshape calls with jnp.reshape)
# observed on jax 0.10.2 CPU: runs clean. `np.reshape` of a traced array inside the
#   jitted `A` works: NumPy's reshape hands the call to the argument's own `.reshape`
#   method, which a tracer has, so no host conversion happens; `np.ones((I, J, K))` is a
#   constant of static sizes. The lecture calls the jitted functions with the NumPy model,
#   whose arrays jit traces. Added: `tauchen`, the smallest stand-in for quantecon's
#   `qe.tauchen`, and the __main__ block, which checks that the solution satisfies
#   v = A v + A 1 and that a second call reuses the compilation.
# gap: exemption-vs-JAX
import numpy as np
import jax
import jax.numpy as jnp
from collections import namedtuple
from scipy.stats import norm

jax.config.update("jax_enable_x64", True)


def tauchen(n, rho, sigma, mu=0.0, n_std=3):
    # stand-in for quantecon.tauchen: returns an object with .state_values and .P
    std_y = np.sqrt(sigma**2 / (1 - rho**2))
    x = np.linspace(-n_std * std_y, n_std * std_y, n)
    step = x[1] - x[0]
    P = np.empty((n, n))
    for i in range(n):
        z = x - rho * x[i]
        P[i] = norm.cdf((z + step / 2) / sigma) - norm.cdf((z - step / 2) / sigma)
        P[i, 0] = norm.cdf((x[0] - rho * x[i] + step / 2) / sigma)
        P[i, -1] = 1 - norm.cdf((x[-1] - rho * x[i] - step / 2) / sigma)
    return namedtuple("MarkovChain", ("P", "state_values"))(P, x + mu / (1 - rho))


class qe:
    tauchen = staticmethod(tauchen)


SVModel = namedtuple('SVModel',
                        ('P', 'hc_grid',
                         'Q', 'hd_grid',
                         'R', 'z_grid',
                         'β', 'γ', 'bar_σ', 'μ_c', 'μ_d'))

def create_sv_model(β=0.98,        # discount factor
                    γ=2.5,         # coefficient of risk aversion
                    I=14,          # size of state space for h_c
                    ρ_c=0.9,       # persistence parameter for h_c
                    σ_c=0.01,      # volatility parameter for h_c
                    J=14,          # size of state space for h_d
                    ρ_d=0.9,       # persistence parameter for h_d
                    σ_d=0.01,      # volatility parameter for h_d
                    K=14,          # size of state space for z
                    bar_σ=0.01,    # volatility scaling parameter
                    ρ_z=0.9,       # persistence parameter for z
                    σ_z=0.01,      # persistence parameter for z
                    μ_c=0.001,     # mean growth of consumtion
                    μ_d=0.005):    # mean growth of dividends

    mc = qe.tauchen(I, ρ_c, σ_c)
    hc_grid = mc.state_values
    P = mc.P
    mc = qe.tauchen(J, ρ_d, σ_d)
    hd_grid = mc.state_values
    Q = mc.P
    mc = qe.tauchen(K, ρ_z, σ_z)
    z_grid = mc.state_values
    R = mc.P

    return SVModel(P=P, hc_grid=hc_grid,
                   Q=Q, hd_grid=hd_grid,
                   R=R, z_grid=z_grid,
                   β=β, γ=γ, bar_σ=bar_σ, μ_c=μ_c, μ_d=μ_d)


def A(g, sv_model, shapes):
    # Set up
    P, hc_grid, Q, hd_grid, R, z_grid, β, γ, bar_σ, μ_c, μ_d = sv_model
    I, J, K = shapes
    # Reshape and broadcast over (i, j, k, i', j', k')
    hc = np.reshape(hc_grid,     (I, 1, 1, 1,  1,  1))
    hd = np.reshape(hd_grid,     (1, J, 1, 1,  1,  1))
    z = np.reshape(z_grid,       (1, 1, K, 1,  1,  1))
    P = np.reshape(P,            (I, 1, 1, I,  1,  1))
    Q = np.reshape(Q,            (1, J, 1, 1,  J,  1))
    R = np.reshape(R,            (1, 1, K, 1,  1,  K))
    g = np.reshape(g,            (1, 1, 1, I,  J,  K))
    a = μ_d - γ * μ_c
    b = bar_σ**2 * (jnp.exp(2 * hd) + γ**2 * jnp.exp(2 * hc)) / 2
    κ = jnp.exp(a + (1 - γ) * z + b)
    A = β * κ * P * Q * R
    Ag = jnp.sum(A * g, axis=(3, 4, 5))
    return Ag


def sv_pd_ratio_linop(sv_model, shapes):

    # Setp up
    P, hc_grid, Q, hd_grid, R, z_grid, β, γ, bar_σ, μ_c, μ_d = sv_model
    I, J, K = shapes

    ones_array = np.ones((I, J, K))
    # Set up the operator g -> (I - A) g
    J = lambda g: g - A(g, sv_model, shapes)
    # Solve v = (I - A)^{-1} A 1
    A1 = A(ones_array, sv_model, shapes)
    # Apply an iterative solver that works for linear operators
    v = jax.scipy.sparse.linalg.bicgstab(J, A1)[0]
    return v


A = jax.jit(A, static_argnums=(2,))
sv_pd_ratio_linop = jax.jit(sv_pd_ratio_linop, static_argnums=(1,))


if __name__ == "__main__":
    sv_model = create_sv_model(I=6, J=6, K=6)
    shapes = len(sv_model.hc_grid), len(sv_model.hd_grid), len(sv_model.z_grid)
    v_jax_linop = sv_pd_ratio_linop(sv_model, shapes).block_until_ready()
    v_jax_linop = sv_pd_ratio_linop(sv_model, shapes).block_until_ready()
    assert sv_pd_ratio_linop._cache_size() == 1
    ones = np.ones(shapes)
    residual = v_jax_linop - A(v_jax_linop, sv_model, shapes) - A(ones, sv_model, shapes)
    assert float(jnp.max(jnp.abs(residual))) < 1e-4 * float(jnp.max(jnp.abs(v_jax_linop)))
