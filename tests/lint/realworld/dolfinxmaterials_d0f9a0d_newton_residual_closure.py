# source: https://github.com/bleyerj/dolfinx_materials/blob/d0f9a0def9675de45e9d2a7a36404ec6094dbf28/dolfinx_materials/material/jax/jax_newton_solver.py (with dolfinx_materials/material/jax/jax_material.py, dolfinx_materials/jax_materials/elastoplasticity.py and jax_materials/tensors.py at the same commit)
# observed on jax 0.10.2 CPU: the material's batched update works for the first batch size, but when the same material is traced again (a second quadrature map with another number of points) the jitted JAXNewton.solve, whose static `self` is the same solver object, reuses the trace holding the first residual closure and raises UnexpectedTracerError
# gap: stale-state-attributes
# Added: imports gathered in one file; `Material` base class and the linear elastic model replaced by small stand-ins (mu and C only); the `if __name__ == "__main__":` block with two batch sizes.
# Renamed old API: jnp.clip(..., a_min=1e-8) -> jnp.clip(..., min=1e-8).
import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg as sl
from functools import partial, wraps
from typing import NamedTuple

jax.config.update("jax_enable_x64", True)  # use double-precision


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


def dev(x):
    return K @ x


# ---- dolfinx_materials/material/jax/jax_newton_solver.py
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
    return x_sol


class JAXNewton:
    """A tiny Newton solver implemented in JAX. Derivatives are computed via custom implicit differentiation."""

    def __init__(self, rtol=1e-8, atol=1e-8, niter_max=2000):
        self.params = SolverParameters(rtol, atol, niter_max)

    def set_residual(self, r, dr_dx=None):
        # residual
        if isinstance(r, list) or isinstance(r, tuple):
            self.r = lambda x: jnp.concatenate([jnp.atleast_1d(ri(x)) for ri in r])
        else:
            self.r = r  # expect: JIT202
        if dr_dx is None:
            self.dr_dx = jax.jacfwd(self.r)
        else:
            self.dr_dx = dr_dx

    @partial(jax.jit, static_argnums=(0,))
    def solve(self, x):
        solve = lambda f, x: newton_solve(x, f, jax.jacfwd(f), self.params)

        tangent_solve = lambda g, y: _solve_linear_system(x, jax.jacfwd(g)(y), y)
        x_sol = jax.lax.custom_root(self.r, x, solve, tangent_solve, has_aux=False)  # expect: JIT201

        # x_sol, data = newton_solve(x, self.r, self.dr_dx, self.params)
        return x_sol


# ---- dolfinx_materials/material/jax/jax_material.py
class Material:  # stand-in for dolfinx_materials.material.Material
    def __init__(self, **kwargs):
        pass


def tangent_AD(constitutive_update_method):
    @wraps(constitutive_update_method)
    def wrapper(self, *args):
        constitutive_update_fun = partial(constitutive_update_method, self)
        return jax.jacfwd(constitutive_update_fun, argnums=0, has_aux=True)(*args)

    return wrapper


class JAXMaterial(Material):
    """This class is used to define a material behavior implemented with JAX."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.batched_constitutive_update = jax.jit(
            jax.vmap(self.constitutive_update, in_axes=(0, 0, None))
        )


# ---- dolfinx_materials/jax_materials/elastoplasticity.py
@jax.jit
def von_Mises_stress(sig):
    return jnp.sqrt(3 / 2.0) * jnp.linalg.norm(dev(sig))


class vonMisesIsotropicHardening(JAXMaterial):
    def __init__(self, elastic_model, yield_stress):
        super().__init__()
        self.elastic_model = elastic_model
        self.yield_stress = yield_stress
        self.equivalent_stress = von_Mises_stress
        self.newton_solver = JAXNewton()

    @property
    def internal_state_variables(self):
        return {"p": 1}

    @tangent_AD
    def constitutive_update(self, eps, state, dt):
        eps_old = state["Strain"]
        deps = eps - eps_old
        p_old = state["p"][0]  # convert to scalar
        sig_old = state["Stress"]

        mu = self.elastic_model.mu
        C = self.elastic_model.C
        sig_el = sig_old + C @ deps
        sig_Y_old = self.yield_stress(p_old)
        sig_eq_el = jnp.clip(self.equivalent_stress(sig_el), min=1e-8)
        n_el = dev(sig_el) / sig_eq_el
        yield_criterion = sig_eq_el - sig_Y_old

        def deps_p_elastic(dp):
            return jnp.zeros(6)

        def deps_p_plastic(dp):
            return 3 / 2 * n_el * dp  # n=n_el simplification due to radial return

        def deps_p(dp, yield_criterion):
            return jax.lax.cond(
                yield_criterion < 0.0,
                deps_p_elastic,
                deps_p_plastic,
                dp,
            )

        def r(dp):
            r_elastic = lambda dp: dp
            r_plastic = (
                lambda dp: sig_eq_el - 3 * mu * dp - self.yield_stress(p_old + dp)
            )
            return jax.lax.cond(yield_criterion < 0.0, r_elastic, r_plastic, dp)

        self.newton_solver.set_residual(r)
        dp = self.newton_solver.solve(0.0)

        sig = sig_el - 2 * mu * deps_p(dp, yield_criterion)

        state["Strain"] += deps
        state["p"] += dp
        state["Stress"] = sig
        return sig, state


class LinearElasticIsotropic:  # stand-in: only the fields used above
    def __init__(self, E, nu):
        kappa = E / (3 * (1 - 2 * nu))
        self.mu = E / (2 * (1 + nu))
        self.C = 3 * kappa * J + 2 * self.mu * K


if __name__ == "__main__":
    import os
    import sys
    import traceback

    sig0, sigu, b = 350.0, 500.0, 1e3

    def yield_stress(p):
        return sig0 + (sigu - sig0) * (1 - jnp.exp(-b * p))

    material = vonMisesIsotropicHardening(LinearElasticIsotropic(E=70e3, nu=0.3), yield_stress)

    def update(nbatch, eps=1e-2):
        Eps = np.vstack(([0, 0, 0, eps, 1.3 * eps, 0],) * nbatch)
        state = {
            "p": np.zeros((nbatch, 1)),
            "Stress": np.zeros((nbatch, 6)),
            "Strain": np.zeros((nbatch, 6)),
        }
        return material.batched_constitutive_update(Eps, state, 0.0)

    Ct, state = update(4)
    assert state["p"][0, 0] > 0  # plastic flow computed correctly the first time

    # observed: line 106 after the first batched update, the residual closure stored on the long-lived solver holds JVP/batch tracers of that finished trace
    cells = [c.cell_contents for c in material.newton_solver.r.__closure__]
    assert any(isinstance(c, jax.core.Tracer) for c in cells)

    # observed: line 117 a second batch size retraces the material, but solve() (static self, the same
    # solver object) reuses its cached trace built around the first residual closure:
    # UnexpectedTracerError, reported at the `self.newton_solver.solve(0.0)` call
    try:
        update(6)
        raise SystemExit("expected UnexpectedTracerError")
    except jax.errors.UnexpectedTracerError:
        here = os.path.realpath(__file__)
        frames = [f for f in traceback.extract_tb(sys.exc_info()[2]) if os.path.realpath(f.filename) == here]
        assert "self.newton_solver.solve(0.0)" in frames[-1].line, frames[-1]
    print("ok: leaked residual closure, UnexpectedTracerError on retrace")
