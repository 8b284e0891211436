# source: https://github.com/bleyerj/dolfinx_materials/blob/beea3ce207b19c9b96fd1155d47c53ef8da933f0/demos/jax/elastoplasticity/elastoplasticity_benchmark.ipynb (first two code cells; newton_solve, _solve_linear_system, SolverParameters and the tensor helpers from dolfinx_materials/material/jax/jax_newton_solver.py and dolfinx_materials/jax_materials/tensors.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; the vmapped update over four load steps and a jitted retrace with another batch size give the same plastic strain
# gap: stale-state-attributes
# The author's benchmark variant of the Newton solver: the residual is set once, as pure jitted functions, and each
# call passes the per-point data through `aux` to the jitted `solve` (static `self`), so no closure over tracers is
# stored on the solver object (compare dolfinxmaterials_d0f9a0d_newton_residual_closure.py).
# Added: imports gathered in one file; dolfinx/mpi/matplotlib imports dropped; the unused material classes of the
# cell (one of them calls a missing method) left out; LinearElasticIsotropic replaced by a small stand-in (E, mu, C);
# batch size 100000 -> 8; the `if __name__ == "__main__":` block wraps the second cell and adds another batch size
# under jax.jit.
# Renamed old API: jnp.clip(..., a_min=1e-8) -> jnp.clip(..., min=1e-8).
import numpy as np
import jax
import jax.numpy as jnp
import scipy.linalg as sl
from functools import partial
from typing import NamedTuple
from time import time

jax.config.update("jax_enable_x64", True)  # use double-precision (set by dolfinx_materials.material.jax)


# ---- dolfinx_materials/jax_materials/tensors.py (excerpt)
A = 1 / 3.0 * jnp.ones((3, 3))
J = sl.block_diag(A, jnp.zeros((3, 3)))
B = jnp.array(
    [
        [2 / 3.0, -1 / 3.0, -1 / 3.0],
        [-1 / 3.0, 2 / 3.0, -1 / 3.0],
        [-1 / 3.0, -1 / 3.0, 2 / 3.0],
    ]
)
K = sl.block_diag(B, jnp.eye(3))


def tr(x):
    if len(x.shape) == 1:
        return sum(x[:3])
    else:
        return x[0, 0] + x[1, 1] + x[2, 2]


def dev(x):
    if len(x.shape) == 1:
        return K @ x
    else:
        return x - tr(x) / 3 * jnp.eye(3)


def to_mat(x):
    if len(x) == 6:
        return jnp.array(
            [
                [x[0], x[3] / jnp.sqrt(2), x[4] / jnp.sqrt(2)],
                [x[3] / jnp.sqrt(2), x[1], x[5] / jnp.sqrt(2)],
                [x[4] / jnp.sqrt(2), x[5] / jnp.sqrt(2), x[2]],
            ]
        )
    else:
        return jnp.array(
            [
                [x[0], x[3], x[5]],
                [x[4], x[1], x[7]],
                [x[6], x[8], x[2]],
            ]
        )


# ---- dolfinx_materials/jax_materials/elastoplasticity.py (excerpt)
def Hosford_stress(sig, a=10):
    sI = jnp.linalg.eigh(to_mat(sig))[0]
    return (
        1
        / 2
        * (
            jnp.abs(sI[0] - sI[1]) ** a
            + jnp.abs(sI[0] - sI[2]) ** a
            + jnp.abs(sI[2] - sI[1]) ** a
        )
    ) ** (1 / a)


class LinearElasticIsotropic:  # stand-in: only the fields used below
    def __init__(self, E, nu):
        kappa = E / (3 * (1 - 2 * nu))
        self.E = E
        self.mu = E / (2 * (1 + nu))
        self.C = 3 * kappa * J + 2 * self.mu * K


# ---- dolfinx_materials/material/jax/jax_newton_solver.py (excerpt)
class SolverParameters(NamedTuple):
    """Parameters of Newton solver"""

    rtol: float
    atol: float
    niter_max: int


def _solve_linear_system(x, J, b):
    if jnp.isscalar(x):
        return b / J
    else:
        dx = jnp.linalg.solve(J, b)
        # dx, _ = jax.scipy.sparse.linalg.gmres(J, b, x, tol=1e-8)
    return dx


def newton_solve(x, r, dr_dx, params):
    def run_newton(x, params):
        niter = 0

        res = r(x)
        norm_res0 = jnp.linalg.norm(res)

        def cond_fun(state):
            norm_res, niter, _ = state
            return jnp.logical_and(
                jnp.logical_and(
                    norm_res > params.atol, norm_res > params.rtol * norm_res0
                ),
                niter < params.niter_max,
            )

        def body_fun(state):
            norm_res, niter, history = state

            x, res = history

            dx = _solve_linear_system(x, dr_dx(x), -res)
            x += dx

            res = r(x)
            norm_res = jnp.linalg.norm(res)

            history = x, res
            niter += 1

            return (norm_res, niter, history)

        history = (x, res)

        state = jax.lax.while_loop(cond_fun, body_fun, (norm_res0, niter, history))
        norm_res, niter_total, history = state
        x_sol, res_sol = history
        data = (niter_total, norm_res0, norm_res, res_sol)
        return x_sol, data

    x_sol, data = run_newton(x, params)
    return x_sol, data


# ---- demos/jax/elastoplasticity/elastoplasticity_benchmark.ipynb, cell 1
class JAXNewton:
    """A tiny Newton solver implemented in JAX. Derivatives are computed via custom implicit differentiation."""

    def __init__(self, rtol=1e-8, atol=1e-8, niter_max=2000, implicit_diff=True):
        self.params = SolverParameters(rtol, atol, niter_max)
        self.implicit_diff = implicit_diff

    def set_residual(self, r, dr_dx=None):
        # residual
        if isinstance(r, list) or isinstance(r, tuple):
            self.r = lambda *x: jnp.concatenate([jnp.atleast_1d(ri(*x)) for ri in r])
        else:
            self.r = r
        if dr_dx is None:
            self.dr_dx = jax.jit(jax.jacfwd(self.r))
        else:
            self.dr_dx = dr_dx

    @partial(jax.jit, static_argnums=(0,))
    def solve(self, x, aux=None):
        if self.implicit_diff:
            solve = lambda f, x: newton_solve(x, f, jax.jacfwd(f), self.params)
            tangent_solve = lambda g, y: _solve_linear_system(x, jax.jacfwd(g)(y), y)
            x_sol, data = jax.lax.custom_root(self.r, x, solve, tangent_solve, has_aux=True)
        else:
            # x_sol, data = solve(self.r, x)
            x_sol, data = newton_solve(x, lambda x: self.r(x, *aux), lambda x: self.dr_dx(x, *aux), self.params)
        return x_sol, data


E = 70e3
sig0 = 350.0
sigu = 500.0
b = 1e3
elastic_model = LinearElasticIsotropic(E=70e3, nu=0.3)
equivalent_stress = Hosford_stress

def yield_stress(p):
    return sig0 + (sigu - sig0) * (1 - jnp.exp(-b * p))
C = elastic_model.C
E = elastic_model.E

implicit_diff = False
newton_solver = JAXNewton(atol=1e-8, rtol=1e-8, niter_max=100, implicit_diff=implicit_diff)

def setup_integrator():

    @jax.jit
    def stress(deps, deps_p, sig_old, C):
        return sig_old + C @ (deps - dev(deps_p))

    normal = jax.jacfwd(equivalent_stress)

    @jax.jit
    def r_p(dx, deps, sig_old, p_old, yield_criterion, C):
        deps_p = dx[:-1]
        dp = dx[-1]
        sig_eq = equivalent_stress(stress(deps, deps_p, sig_old, C))
        r_elastic = lambda dp: dp
        r_plastic = lambda dp: sig_eq - yield_stress(p_old + dp)
        return jax.lax.cond(yield_criterion < 0.0, r_elastic, r_plastic, dp)

    @jax.jit
    def r_eps_p(dx, deps, sig_old, p_old, yield_criterion, C):
        deps_p = dx[:-1]
        dp = dx[-1]

        sig = stress(deps, deps_p, sig_old, C)
        n = normal(sig)
        r_elastic = lambda deps_p, dp: deps_p
        r_plastic = lambda deps_p, dp: deps_p - n * dp
        return jax.lax.cond(yield_criterion < 0.0, r_elastic, r_plastic, deps_p, dp)

    return r_p, r_eps_p

r_p, r_eps_p = setup_integrator()
newton_solver.set_residual((r_p, r_eps_p), dr_dx=None)


def constitutive_update(eps, state, dt):
    Tic = time()
    eps_old = state["Strain"]

    deps = eps - eps_old
    p_old = state["p"][0]  # convert to scalar
    sig_old = state["Stress"]

    sig_el = sig_old + C @ deps
    sig_Y_old = yield_stress(p_old)
    sig_eq_el = jnp.clip(equivalent_stress(sig_el), min=1e-8)
    yield_criterion = sig_eq_el - sig_Y_old

    x0 = jnp.zeros((7,))
    x, data = newton_solver.solve(x0, aux=(deps, sig_old, p_old, yield_criterion, C))
    x, data = newton_solver.solve(
        x0, aux=(deps, sig_old, p_old, yield_criterion, C)
    )
    # jax.debug.print("Newton time {d}", d=data[-1])
    depsp = x[:-1]
    dp = x[-1]

    sig = sig_old + C @ (deps - dev(depsp))
    state["Strain"] += deps
    state["p"] += dp
    state["Stress"] = sig
    state["niter"] = jnp.array([data[0]])
    # jax.debug.print("Total time {d}", d=time() - Tic)
    return C, state
    # return sig, state


batched_constitutive_update = jax.vmap(constitutive_update, in_axes=(0, 0, None))
# batched_constitutive_update = jax.jit(batched_constitutive_update)


if __name__ == "__main__":
    # ---- cell 2
    Nbatch = 8
    eps = 1e-2
    Eps = np.vstack(([0,0,0,eps,1.3*eps, 0],) * Nbatch)
    state = {
        "p": np.zeros((Nbatch, 1)),
        "Stress": np.zeros((Nbatch, 6)),
        "Strain": np.zeros((Nbatch, 6)),
    }

    for t in np.linspace(0, 1.0, 4):
        tic = time()
        Ct, state = batched_constitutive_update(t*Eps, state, 0)
        nit = max(1, state["niter"][0,0])
        print(f"Batched time for batch size {Nbatch} per iteration = {(time()-tic)/nit}")
    p_vmap = np.asarray(state["p"][0, 0])
    assert p_vmap > 0

    # the same solver traced again under jit with another batch size: no stale state
    jitted = jax.jit(batched_constitutive_update)
    for n in (3,):
        st = {"p": np.zeros((n, 1)), "Stress": np.zeros((n, 6)), "Strain": np.zeros((n, 6))}
        for t in np.linspace(0, 1.0, 4):
            _, st = jitted(t * Eps[:n], st, 0.0)
        np.testing.assert_allclose(st["p"][:, 0], p_vmap, rtol=1e-10)
    print("ok")
