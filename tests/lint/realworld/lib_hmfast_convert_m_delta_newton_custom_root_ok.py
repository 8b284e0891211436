# source: https://github.com/pjanul/hmfast/blob/1b0d88974ad55c111563765cae45dc129ace7b68/src/hmfast/halos/massdef.py
#   (with newton_solver/newton_root from src/hmfast/utils.py at the same commit)
# observed on jax 0.10.2 CPU: _convert_m_delta, jitted with the two MassDefinition objects
#   and max_iter static, vmaps a per-halo lax.cond whose false branch solves the NFW mass
#   relation with a lax.custom_root Newton solver (a lax.while_loop on a traced tolerance
#   test); converting M200c -> M200m and back returns the input masses, the same-definition
#   conversion returns them unchanged through the cond's true branch, and a second call with
#   the same definitions and new masses reuses the compilation.
# gap: exemption-vs-JAX
# added: imports; MassDefinition kept with its docstrings shortened and r_delta left out;
#   a stand-in Cosmology (a flax struct dataclass with a flat-LCDM omega_m(z), which is all
#   the conversion reads); the __main__ block. Tabs of the original are spaces here.
from functools import partial

import jax
import jax.numpy as jnp
from flax import struct
from jax import lax

jax.config.update("jax_enable_x64", True)


# Newton's method root finder
def newton_solver(f, x0, tol=1e-8, max_iter=25):
    df = jax.grad(f)
    def cond_fn(state):
        x, i = state
        return (jnp.abs(f(x)) > tol) & (i < max_iter)
    def body_fn(state):
        x, i = state
        fx = f(x)
        dfx = df(x)
        x_new = x - fx / dfx
        return (x_new, i + 1)
    x_final, _ = lax.while_loop(cond_fn, body_fn, (x0, 0))
    return x_final

def newton_root(f, x0, tol=1e-8, max_iter=25):
    def solve(f, x0):
        return newton_solver(f, x0, tol=tol, max_iter=max_iter)
    # For scalar roots, use the recommended tangent_solve
    tangent_solve = lambda g, y: y / g(1.0)
    return lax.custom_root(f, x0, solve, tangent_solve=tangent_solve)


@struct.dataclass
class Cosmology:
    # stand-in for hmfast.cosmology.Cosmology: only omega_m(z) is used here
    Om0: float = 0.31

    def omega_m(self, z):
        a3 = (1.0 + z) ** 3
        return self.Om0 * a3 / (self.Om0 * a3 + 1.0 - self.Om0)


class MassDefinition:
    """
    Mass definition for halos specified by an overdensity threshold and a reference density.
    """

    def __init__(self, delta=200, reference="critical"):
        self._delta = None
        self._reference = None
        self.reference = reference
        self.delta = delta

    # Ensure that reference is only ever critical or mean
    @property
    def reference(self):
        return self._reference

    @reference.setter
    def reference(self, value):
        value = str(value).lower()
        if value not in ("critical", "mean"):
            raise ValueError("reference must be either 'critical' or 'mean'")

        # Prevent changing reference if delta == "vir"
        if getattr(self, "_delta", None) == "vir" and value != "critical":
            raise ValueError("'vir' is only allowed with 'critical' reference")
        self._reference = value


    @property
    def delta(self):
        return self._delta


    @delta.setter
    def delta(self, value):
        if isinstance(value, str):
            value = value.lower()

        # If 'vir', reference must be 'critical'
        if value == "vir":
            if getattr(self, "_reference", None) != "critical":
                raise ValueError("'vir' is only allowed with 'critical' reference")
            self._delta = value
            return

        # Otherwise, it must be numeric
        if isinstance(value, (int, float)):
            self._delta = value
            return

        raise ValueError("delta must be numeric or 'vir'")


    def _tree_flatten(self):
        # delta can be a tracer (numeric) or a static string ('vir')
        # reference is always a static string for critical/mean
        children = ()
        aux_data = (self.delta, self.reference)
        return (children, aux_data)

    @classmethod
    def _tree_unflatten(cls, aux_data, children):
        return cls(*aux_data)

    def _delta_vir_to_crit(self, cosmology, z):
        """
        Compute the virial overdensity with respect to the critical density.
        """
        omega_m = cosmology.omega_m(z)
        x = omega_m - 1.0
        return 18.0 * jnp.pi**2 + 82.0 * x - 39.0 * x**2

    def _delta_numeric(self, cosmology, z):
        """
        Return the numeric overdensity threshold at redshift ``z``.
        """
        if self.delta == "vir":
            if self.reference != "critical":
                raise ValueError("virial overdensity only defined w.r.t. critical density")
            return self._delta_vir_to_crit(cosmology, z)

        return self.delta

    def _convert_reference(self, cosmology, z, delta, from_ref="critical", to_ref="mean"):
        """
        Convert an overdensity threshold between critical and mean references.
        """
        z = jnp.asarray(z)
        delta = jnp.asarray(delta)

        if from_ref == to_ref:
            return jnp.broadcast_to(delta, z.shape)

        omega_m = cosmology.omega_m(z)
        if from_ref == "critical" and to_ref == "mean":
            return delta / omega_m
        if from_ref == "mean" and to_ref == "critical":
            return delta * omega_m

        raise ValueError("from_ref and to_ref must be 'critical' or 'mean'")


jax.tree_util.register_pytree_node(
    MassDefinition,
    lambda obj: obj._tree_flatten(),
    lambda aux_data, children: MassDefinition._tree_unflatten(aux_data, children)
)


@partial(jax.jit, static_argnums=(3, 4, 6))
def _convert_m_delta(cosmology, m, z, mass_def_old, mass_def_new, c_old, max_iter=20):
    """
    Convert halo masses between two spherical-overdensity definitions.
    """
    m, z = jnp.atleast_1d(m), jnp.atleast_1d(z)
    nm, nz = len(m), len(z)
    c_old = jnp.broadcast_to(jnp.reshape(jnp.squeeze(jnp.asarray(c_old)), (-1, nz)), (nm, nz))

    def get_delta_crit(mdef, z_val):
        delta = mdef._delta_numeric(cosmology, z_val)
        return mdef._convert_reference(cosmology, z_val, delta, from_ref=mdef.reference, to_ref="critical")

    d_old_z = get_delta_crit(mass_def_old, z)
    d_new_z = get_delta_crit(mass_def_new, z)
    is_same_z = jnp.isclose(d_old_z, d_new_z) & (mass_def_old.reference == mass_def_new.reference)

    mm, zz = jnp.meshgrid(m, z, indexing='ij')
    x0 = m[:, None] * (d_old_z / d_new_z)[None, :] ** 0.2

    def solve_single(m_i, c_i, x0_i, d_o, d_n, same_flag):
        f_nfw = lambda x: jnp.log1p(x) - x / (1.0 + x)
        obj = lambda m_new: m_i / m_new - f_nfw(c_i) / f_nfw(c_i * (m_new / m_i * d_o / d_n) ** (1 / 3))

        return jax.lax.cond(
            same_flag,
            lambda _: m_i,
            lambda _: newton_root(obj, x0=x0_i, max_iter=max_iter),
            None,
        )

    d_o_flat = jnp.broadcast_to(d_old_z[None, :], mm.shape).flatten()
    d_n_flat = jnp.broadcast_to(d_new_z[None, :], mm.shape).flatten()
    same_flat = jnp.broadcast_to(is_same_z[None, :], mm.shape).flatten()

    results = jax.vmap(solve_single)(mm.flatten(), c_old.flatten(), x0.flatten(), d_o_flat, d_n_flat, same_flat)
    return jnp.squeeze(results.reshape(mm.shape))


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )
    cosmo = Cosmology()
    m200c = MassDefinition(200, "critical")
    m200m = MassDefinition(200, "mean")
    m = jnp.array([1e12, 1e13, 1e14])
    z = jnp.array([0.0, 0.5, 1.0, 2.0])
    c = jnp.full((3, 4), 5.0)

    m_mean = _convert_m_delta(cosmo, m, z, m200c, m200m, c)
    assert m_mean.shape == (3, 4)
    assert bool(jnp.all(m_mean > m[:, None])), m_mean  # M200m > M200c for an NFW halo
    # the concentration in the new definition: c' = c r'/r = c (M'/M * 200/200')^(1/3)
    d_c = 200.0
    d_m_crit = 200.0 * cosmo.omega_m(z)
    c_mean = c * (m_mean / m[:, None] * d_c / d_m_crit[None, :]) ** (1 / 3)
    m_back = jax.vmap(
        lambda mi, ci, zi: _convert_m_delta(cosmo, mi, zi, m200m, m200c, ci),
        in_axes=(1, 1, 0), out_axes=1,
    )(m_mean, c_mean, z)
    assert bool(jnp.allclose(m_back, m[:, None], rtol=1e-6)), m_back

    same = _convert_m_delta(cosmo, m, z, m200c, m200c, c)
    assert bool(jnp.allclose(same, m[:, None])), same

    m2 = jnp.array([2e12, 2e13, 2e14])
    before = len(compiles)
    _convert_m_delta(cosmo, m2, z, m200c, m200m, c)
    assert len(compiles) == before, compiles[before:]
