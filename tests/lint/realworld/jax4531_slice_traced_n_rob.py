# source: https://github.com/jax-ml/jax/issues/4531
# observed on jax 0.10.2 CPU: IndexError: Slice entries must be static integers (slice stop n_rob*nvar is a tracer), raised at line 30 under jit; the unjitted call works
# gap: other
# (added: imports, small random inputs, and a `__main__` block that jits compute_x as the report
#  describes ("I was trying to jit compile the following function"); the report's function goes on
#  past the lines shown, so it ends here after the y part with a stand-in `return`)
import jax.numpy as jnp
import numpy as np
from jax import jit


def compute_x(num, n_con, n_rob, P, Ax_eq, bx_eq,
                 Ay_eq, by_eq, Az_eq, bz_eq, Ax_eq_obs,
              bx_eq_obs, Ay_eq_obs, by_eq_obs, Az_eq_obs,
              bz_eq_obs, a, d_obs_ij, alpha_ij, beta_ij,
              lamda_x, lamda_y, lamda_z,  rho_w_alpha,
              cost_mat_inv_x, cost_mat_inv_y, cost_mat_inv_z):

    nvar = jnp.shape(P)[1]
    A_w = Ax_eq_obs

    aug_term = jnp.vstack(( bx_eq_obs+1.22*d_obs_ij*jnp.cos(alpha_ij)*jnp.sin(beta_ij)-lamda_x/rho_w_alpha,   by_eq_obs+1.22*d_obs_ij*jnp.sin(alpha_ij)*jnp.sin(beta_ij)-lamda_y/rho_w_alpha, bz_eq_obs+1.22*d_obs_ij*jnp.cos(beta_ij)-lamda_z/rho_w_alpha  ))
    linterm_augment = -rho_w_alpha*jnp.dot(A_w.T, aug_term.T ).T
    lincost_mat = jnp.hstack(( -linterm_augment, jnp.vstack(( bx_eq, by_eq, bz_eq  ))))

    sol_x = jnp.dot(cost_mat_inv_x, lincost_mat[0])
    sol_y = jnp.dot(cost_mat_inv_y, lincost_mat[1])
    sol_z = jnp.dot(cost_mat_inv_z, lincost_mat[2])

    primal_sol_x = sol_x[0:n_rob*nvar]  # expect: JIT404
    primal_sol_y = sol_y[0:n_rob*nvar]  # tolerate: JIT404
    primal_sol_z = sol_z[0:n_rob*nvar]  # tolerate: JIT404

    cx = primal_sol_x[0:n_rob*nvar]  # tolerate: JIT404
    cx = cx.reshape(n_rob, nvar)  # tolerate: JIT404

    x = jnp.dot(P, cx.T).T
    wc_alpha = jnp.dot(A_w, primal_sol_x)-bx_eq_obs
    cy = primal_sol_y[0:n_rob*nvar]  # tolerate: JIT404
    return x, wc_alpha, cy, primal_sol_z


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_rob, nvar, n_steps, n_obs, n_eq = 2, 3, 5, 4, 2
    P = rng.normal(size=(n_steps, nvar))
    A_eq = rng.normal(size=(n_eq, n_rob * nvar))
    b_eq = rng.normal(size=(n_eq,))
    A_obs = rng.normal(size=(n_obs, n_rob * nvar))
    b_obs = rng.normal(size=(n_obs,))
    vec = rng.normal(size=(n_obs,))
    m = n_rob * nvar + n_eq
    cost_inv = rng.normal(size=(m, m))
    args = (0, 0, n_rob, P, A_eq, b_eq, A_eq, b_eq, A_eq, b_eq, A_obs,
            b_obs, A_obs, b_obs, A_obs, b_obs, 1.0, vec, vec, vec,
            vec, vec, vec, 1.0, cost_inv, cost_inv, cost_inv)
    compute_x(*args)  # runs without jit
    jit(compute_x)(*args)
