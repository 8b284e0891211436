# source: https://github.com/jax-md/jax-md/blob/748ec10cc144f68874240d1f78c9ffb298932049/jax_md/simulate.py (nvt_langevin, reported in https://github.com/jax-md/jax-md/issues/213)
# observed on jax 0.10.2 CPU: runs; the momenta are drawn with the key that init_fn then stores in the state, and apply_fn splits that consumed key again (jax_debug_key_reuse raises KeyReuseError)
# gap: flow-sensitive
# observed: line 110 redrawing initialize_momenta with state.rng reproduces state.momentum exactly (the stored key already drew the momenta); with jax_debug_key_reuse on, the first apply_fn raises KeyReuseError (previously-consumed key passed to random_split)
# Stand-ins for jax_md internals: `jax_md.dataclasses.dataclass` -> dataclasses.dataclass + jax.tree_util.register_dataclass,
# `quantity.canonicalize_force` -> minus the gradient of the energy, util.f32 -> jnp.float32; docstrings trimmed.
# Added: a harmonic energy, a free-space shift, and the __main__ check.
import dataclasses
import functools
from typing import Callable, Union

import jax
import jax.numpy as jnp
from jax import random

Array = jnp.ndarray
f32 = jnp.float32
ShiftFn = Callable


def canonicalize_force(energy_fn):
  def force_fn(R, **kwargs):
    return -jax.grad(energy_fn)(R, **kwargs)
  return force_fn


@functools.singledispatch
def canonicalize_mass(mass: Union[Array, float]) -> Union[Array, float]:
  """Reshape mass vector for broadcasting with positions."""
  if isinstance(mass, float):
    return mass
  if mass.ndim == 2 and mass.shape[1] == 1:
    return mass
  elif mass.ndim == 1:
    return jnp.reshape(mass, (mass.shape[0], 1))
  elif mass.ndim == 0:
    return mass
  msg = (
      'Expected mass to be either a floating point number or a one-dimensional'
      'ndarray. Found {}.'.format(mass)
      )
  raise ValueError(msg)


@functools.singledispatch
def initialize_momenta(R: Array, mass: Array, key: Array, kT: float):
  """Initialize momenta with the Maxwell-Boltzmann distribution."""
  P = jnp.sqrt(mass * kT) * random.normal(key, R.shape, dtype=R.dtype)
  # If simulating more than one particle, center the momentum.
  if R.shape[0] > 1:
    P = P - jnp.mean(P, axis=0, keepdims=True)
  return P


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class NVTLangevinState:
  """A struct containing state information for the Langevin thermostat.

  Attributes:
    position: The current position of the particles. An ndarray of floats with
      shape `[n, spatial_dimension]`.
    momentum: The momentum of particles. An ndarray of floats with shape
      `[n, spatial_dimension]`.
    force: The (non-stochastic) force on particles. An ndarray of floats with
      shape `[n, spatial_dimension]`.
    mass: The mass of particles. Will either be a float or an ndarray of floats
      with shape `[n]`.
    rng: The current state of the random number generator.
  """
  position: Array
  momentum: Array
  force: Array
  mass: Array
  rng: Array

  @property
  def velocity(self) -> Array:
    return self.momentum / self.mass


def nvt_langevin(energy_or_force: Callable[..., Array],
                 shift: ShiftFn,
                 dt: float,
                 kT: float,
                 gamma: float=0.1,
                 center_velocity: bool=True):
  """Simulation in the NVT ensemble using the Langevin thermostat.

  Our implementation follows the excellent set of lecture notes by Carlon,
  Laleman, and Nomidis [#carlon]_ .
  """

  force_fn = canonicalize_force(energy_or_force)

  dt_2 = f32(dt / 2)
  dt2 = f32(dt ** 2 / 2)
  dt32 = f32(dt ** (3.0 / 2.0) / 2)

  kT = f32(kT)

  gamma = f32(gamma)

  def init_fn(key, R, mass=f32(1), **kwargs):
    _kT = kT if 'kT' not in kwargs else kwargs['kT']
    mass = canonicalize_mass(mass)

    key, split = random.split(key)

    P = initialize_momenta(R, mass, key, kT)  # expect: JIT502
    return NVTLangevinState(R, P, force_fn(R, **kwargs), mass, key)  # pytype: disable=wrong-arg-count

  def apply_fn(state, **kwargs):
    R, P, F, mass, key = dataclasses.astuple(state)

    _kT = kT if 'kT' not in kwargs else kwargs['kT']
    N, dim = R.shape

    key, xi_key, theta_key = random.split(key, 3)
    xi = random.normal(xi_key, (N, dim), dtype=R.dtype)
    sqrt3 = f32(jnp.sqrt(3))
    theta = random.normal(theta_key, (N, dim), dtype=R.dtype) / sqrt3

    # NOTE(schsam): We really only need to recompute sigma if the temperature
    # is nonconstant. @Optimization
    # TODO(schsam): Check that this is really valid in the case that the masses
    # are non identical for all particles.
    sigma = jnp.sqrt(f32(2) * _kT * gamma * mass)
    C = dt2 * (F - gamma * P) + sigma * dt32 * (xi + theta)

    R = shift(R, (dt * P + C) / mass, **kwargs)
    F_new = force_fn(R, **kwargs)
    P = (f32(1) - dt * gamma) * P + dt_2 * (F_new + F)
    P = P + sigma * jnp.sqrt(dt) * xi - gamma * C

    return NVTLangevinState(R, P, F_new, mass, key)  # pytype: disable=wrong-arg-count
  return init_fn, apply_fn


def energy_fn(R):
  return 0.5 * jnp.sum(R ** 2)


def shift(R, dR, **kwargs):
  return R + dR


if __name__ == "__main__":
  kT = 0.5
  init_fn, apply_fn = nvt_langevin(energy_fn, shift, dt=1e-3, kT=kT)
  R = random.uniform(random.PRNGKey(1), (8, 2))
  state = init_fn(random.PRNGKey(0), R)
  # The key kept in the state for the thermostat noise is the one that already drew the momenta.
  redrawn = initialize_momenta(R, canonicalize_mass(f32(1)), state.rng, f32(kT))
  assert jnp.array_equal(redrawn, state.momentum), "momenta not drawn from state.rng"
  state = jax.jit(apply_fn)(state)
  print("initial momenta were drawn with the key stored in the state: key consumed twice")
  # JAX's own key-reuse checker flags the first Langevin step.
  jax.config.update("jax_debug_key_reuse", True)
  typed_state = init_fn(random.key(0), R)
  try:
    apply_fn(typed_state)
    raise AssertionError("expected KeyReuseError")
  except jax.errors.KeyReuseError as e:
    print("KeyReuseError:", str(e).splitlines()[0])
