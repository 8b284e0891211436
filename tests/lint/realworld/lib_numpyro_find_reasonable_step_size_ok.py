# source: https://github.com/pyro-ppl/numpyro/blob/0.22.0/numpyro/infer/hmc_util.py
# observed on jax 0.10.2 CPU: runs clean under jit; `potential_energy is None` tests the
#   structure of the IntegratorState (None stays a Python None under jit), the step-size search
#   is a while_loop whose body splits its carried key before every momentum draw.
# gap: exemption-vs-JAX
# added: the `__main__` block and its stand-in potential and momentum generator;
#   `IntegratorState`, `_value_and_grad`, `_kinetic_grad`, `velocity_verlet` and
#   `find_reasonable_step_size` as in the file (docstrings shortened); numpyro's `while_loop`
#   and `euclidean_kinetic_energy` imported from the installed numpyro 0.22.0.
from collections import namedtuple

import jax
from jax import grad, jacfwd, random, value_and_grad
import jax.numpy as jnp

from numpyro.infer.hmc_util import euclidean_kinetic_energy
from numpyro.util import while_loop

IntegratorState = namedtuple(
    "IntegratorState", ["z", "r", "potential_energy", "z_grad"]
)
IntegratorState.__new__.__defaults__ = (None,) * len(IntegratorState._fields)


def _value_and_grad(f, x, forward_mode_differentiation=False):
    if forward_mode_differentiation:

        def _wrapper(x):
            out = f(x)
            return out, out

        grads, out = jacfwd(_wrapper, has_aux=True)(x)
        return out, grads
    else:
        return value_and_grad(f, has_aux=False)(x)


def _kinetic_grad(kinetic_fn, inverse_mass_matrix, r):
    if hasattr(kinetic_fn, "_kinetic_grad"):
        return kinetic_fn._kinetic_grad(inverse_mass_matrix, r)
    else:
        return grad(kinetic_fn, argnums=1)(inverse_mass_matrix, r)


def velocity_verlet(potential_fn, kinetic_fn, forward_mode_differentiation=False):
    """Second order symplectic integrator (velocity verlet)."""

    def init_fn(z, r, potential_energy=None, z_grad=None):
        if potential_energy is None or z_grad is None:
            potential_energy, z_grad = _value_and_grad(
                potential_fn, z, forward_mode_differentiation
            )
        return IntegratorState(z, r, potential_energy, z_grad)

    def update_fn(step_size, inverse_mass_matrix, state):
        z, r, _, z_grad = state
        r = jax.tree.map(
            lambda r, z_grad: r - 0.5 * step_size * z_grad, r, z_grad
        )  # r(n+1/2)
        r_grad = _kinetic_grad(kinetic_fn, inverse_mass_matrix, r)
        z = jax.tree.map(lambda z, r_grad: z + step_size * r_grad, z, r_grad)  # z(n+1)
        potential_energy, z_grad = _value_and_grad(
            potential_fn, z, forward_mode_differentiation
        )
        r = jax.tree.map(
            lambda r, z_grad: r - 0.5 * step_size * z_grad, r, z_grad
        )  # r(n+1)
        return IntegratorState(z, r, potential_energy, z_grad)

    return init_fn, update_fn


def find_reasonable_step_size(
    potential_fn,
    kinetic_fn,
    momentum_generator,
    init_step_size,
    inverse_mass_matrix,
    z_info,
    rng_key,
):
    """Finds a reasonable step size by tuning `init_step_size`."""
    target_accept_prob = jnp.log(0.8)

    _, vv_update = velocity_verlet(potential_fn, kinetic_fn)
    z, _, potential_energy, z_grad = z_info
    if potential_energy is None or z_grad is None:
        potential_energy, z_grad = value_and_grad(potential_fn)(z)
    finfo = jnp.finfo(jnp.result_type(init_step_size))

    def _body_fn(state):
        step_size, _, direction, rng_key = state
        rng_key, rng_key_momentum = random.split(rng_key)
        step_size = (2.0**direction) * step_size
        r = momentum_generator(z, inverse_mass_matrix, rng_key_momentum)
        _, r_new, potential_energy_new, _ = vv_update(
            step_size, inverse_mass_matrix, (z, r, potential_energy, z_grad)
        )
        energy_current = kinetic_fn(inverse_mass_matrix, r) + potential_energy
        energy_new = kinetic_fn(inverse_mass_matrix, r_new) + potential_energy_new
        delta_energy = energy_new - energy_current
        direction_new = jnp.where(target_accept_prob < -delta_energy, 1, -1)
        return step_size, direction, direction_new, rng_key

    def _cond_fn(state):
        step_size, last_direction, direction, _ = state
        not_small_step_size_cond = (step_size > finfo.tiny) | (direction >= 0)
        not_large_step_size_cond = (step_size < finfo.max) | (direction <= 0)
        not_extreme_cond = not_small_step_size_cond & not_large_step_size_cond
        return not_extreme_cond & (
            (last_direction == 0) | (direction == last_direction)
        )

    step_size, _, _, _ = while_loop(_cond_fn, _body_fn, (init_step_size, 0, 0, rng_key))
    return step_size


if __name__ == "__main__":
    def potential_fn(z):
        return 0.5 * jnp.sum(z**2)

    def momentum_generator(z, inverse_mass_matrix, rng_key):
        return random.normal(rng_key, jnp.shape(z))

    @jax.jit
    def tune(z, init_step_size, rng_key):
        z_info = IntegratorState(z=z)
        return find_reasonable_step_size(
            potential_fn, euclidean_kinetic_energy, momentum_generator,
            init_step_size, jnp.ones(3), z_info, rng_key,
        )

    with jax.debug_key_reuse(True):
        step_size = tune(jnp.ones(3), 1.0, random.key(0))
    assert jnp.isfinite(step_size) and step_size > 0
