# source: https://github.com/vepe99/Odisseo/blob/bd7a8cb1d97efd35a3900cf2ee36bc0e21eb5c27/odisseo/initial_condition.py
#   (Odisseo, a differentiable N-body code: its initial-condition helpers, each jitted, with
#   construct_initial_state from odisseo/__init__.py and the parameter classes of
#   option_classes.py at the same commit; drivers from notebooks/2body.ipynb cell 3 and
#   notebooks/gradient_test/Plummer_in_MNpotential_gradtest.ipynb cell 5. Fixed later:
#   114aa9f "add static_argnames 'num_samples' in sample_position_on_sphere", and
#   62627c7 / 7486c0c, which made `e` static and then replaced the `if` by lax.cond)
# observed on jax 0.10.2 CPU: ic_two_body raises TracerBoolConversionError at `if e==1.`
#   (jit traces the eccentricity); sample_position_on_sphere raises TypeError at the phi
#   draw ("Shapes must be 1D sequences of concrete values"): its shape is the traced
#   num_samples; sample_position_on_circle, the same sampler with num_samples static, runs.
#   Changed: `from beartype import beartype as typechecker` -> `typechecker = None` (beartype
#   is not installed; jaxtyped then checks nothing); the notebooks' astropy unit conversions
#   replaced by their values; the 2body notebook's `config=config` keyword dropped from the
#   ic_two_body call (the signature at this commit has no `config`). Left out: the Plummer
#   samplers (Plummer_sphere, Plummer_sphere_multiprocess), SimulationConfig, the unit
#   constants and the rest of the notebook cells (plots, potentials, time integration).
#   Added: the __main__ checks.
# gap: other
from typing import Optional, Tuple, Callable, Union, List, NamedTuple
from functools import partial
from math import log
import traceback
from jaxtyping import jaxtyped, PRNGKeyArray
typechecker = None  # was: from beartype import beartype as typechecker (beartype is not installed)

import jax
import jax.numpy as jnp
from jax import vmap, random
import numpy as np

# --- odisseo/option_classes.py (the parameter classes)
class PlummerParams(NamedTuple):
    """
    NamedTuple containing the parameters for the Plummer profile
    """
    
    a: float = 7 #kpc
    
    Mtot: float = 1.0 #M☉

class NFWParams(NamedTuple):
    """
    NamedTuple containing the parameters for the NFW profile
    """
    
    Mvir: float = 1.62*1e11 #M☉
    
    r_s: float = 15.3 #kpc
    
    c: float = 10

    d_c: float = log(1+c) - c/(1+c)

class PointMassParams(NamedTuple):
    """
    NamedTuple containing the parameters for the point mass
    """

    M: float = 1.0 #M☉
    
class MNParams(NamedTuple):
    """
    NamedTuple containing the parameters for the Myamoto Nagai profile
    
    """

    M: float = 6.5e10 #M☉

    a: float = 3.0 #kpc

    b: float = 0.28 #kpc


class SimulationParams(NamedTuple):
    """
    NamedTuple containing the parameters for the simulation. This parameter do not require recompilation
    """
    
    G: float = 1.0
    
    t_end: float = 1.0  #In code_units by setting G=1

    Plummer_params: PlummerParams = PlummerParams()

    NFW_params: NFWParams = NFWParams()

    PointMass_params: PointMassParams = PointMassParams()

    MN_params: MNParams = MNParams()


# --- odisseo/__init__.py
def construct_initial_state(position, velocity):
    state = jnp.zeros((position.shape[0], 2, position.shape[1]))
    state = state.at[:, 0, :].set(position)
    state = state.at[:, 1, :].set(velocity)
    
    return state


# --- odisseo/initial_condition.py
@jaxtyped(typechecker=typechecker)
@partial(jax.jit,)
def ic_two_body(mass1: float,
                mass2: float,
                rp: float,
                e: float,
                params: SimulationParams) -> Tuple:
    """
    Create initial conditions for a two-body system.
    
    By default, the two bodies will be placed along the x-axis at the
    closest distance rp. Depending on the input eccentricity, the two 
    bodies can be in a circular (e < 1), parabolic (e = 1), or hyperbolic 
    orbit (e > 1).

    Args:
        mass1 (float): Mass of the first body [nbody units].
        mass2 (float): Mass of the second body [nbody units].
        rp (float): Closest orbital distance [nbody units].
        e (float): Eccentricity.
        config (NamedTuple): Configuration NamedTuple.
        params (NamedTuple): Parameters NamedTuple.
    Returns:
        tuple: A tuple containing:
            - pos (jnp.ndarray): Positions of the particles.
            - vel (jnp.ndarray): Velocities of the particles.
            - mass (jnp.ndarray): Masses of the particles.
    """

    Mtot=mass1+mass2

    if e==1.:  # expect: JIT101
        vrel=jnp.sqrt(params.G * 2*Mtot/rp)
    else:
        a=rp/(1-e)
        vrel=jnp.sqrt(params.G * Mtot*(2./rp-1./a))

    v1 = -params.G*mass2/Mtot * vrel
    v2 = params.G*mass1/Mtot * vrel

    pos  = jnp.array([[0.,0.,0.],[rp,0.,0.]])
    vel  = jnp.array([[0.,v1,0.],[0.,v2,0.]])
    mass = jnp.array([mass1, mass2])

    return pos, vel, mass
    
@jaxtyped(typechecker=typechecker)
@partial(jax.jit)
def sample_position_on_sphere(key: PRNGKeyArray,
                              r_p: float,
                              num_samples: int = 1):
    """
    Sample uniform positions on a sphere of radius r_p.

    Args:
        key (jax.random.PRNGKey): JAX random key for sampling.
        r_p (float): Radius of the sphere.
        num_samples (int): Number of samples to generate. Deafult is 1.

    Returns:
        jnp.ndarray: Sampled positions (num_samples, 3).
    """
    subkey1, subkey2 = random.split(key)
    
    # Sample phi uniformly in [0, 2π]
    phi = random.uniform(subkey1, shape=(num_samples,), minval=0, maxval=2*jnp.pi)  # expect: JIT404
    
    # Sample cos(theta) uniformly in [-1, 1] to ensure uniform distribution on the sphere
    costheta = random.uniform(subkey2, shape=(num_samples,), minval=-1, maxval=1)  # tolerate: JIT404
    theta = jnp.arccos(costheta)  # Convert to theta
    
    # Convert to Cartesian coordinates
    x = r_p * jnp.sin(theta) * jnp.cos(phi)
    y = r_p * jnp.sin(theta) * jnp.sin(phi)
    z = r_p * jnp.cos(theta)

    return jnp.stack([x, y, z], axis=-1)

@jaxtyped(typechecker=typechecker)
@partial(jax.jit, static_argnames=['num_samples'])
def sample_position_on_circle(key: PRNGKeyArray,
                             r_p: float,
                             num_samples: int =1):
    """
    Sample uniform positions on a sphere of radius r_p.

    Args:
        key (jax.random.PRNGKey): JAX random key for sampling.
        r_p (float): Radius of the sphere.
        num_samples (int): Number of samples to generate.

    Returns:
        jnp.ndarray: Sampled positions (num_samples, 3).
    """
    subkey1, subkey2 = random.split(key)
    
    # Sample phi uniformly in [0, 2π]
    phi = random.uniform(subkey1, shape=(num_samples,), minval=0, maxval=2*jnp.pi)
    
    # Sample cos(theta) uniformly in [-1, 1] to ensure uniform distribution on the sphere
    theta = jnp.radians(90) # Convert to theta
    
    # Convert to Cartesian coordinates
    x = r_p * jnp.sin(theta) * jnp.cos(phi)
    y = r_p * jnp.sin(theta) * jnp.sin(phi)
    z = jnp.zeros_like(x)

    return jnp.stack([x, y, z], axis=-1)

@jaxtyped(typechecker=typechecker)
@partial(jax.jit,)
def inclined_position(position: jnp.ndarray,
                     inclination: float):
    """
    Convert position on the xy-plane to an inclined orbit.

   Args:
        position (jnp.ndarray): (x, y, z) position of the Plummer sphere.
        inclination (float): Inclination angle in radians.

    Returns:
        jnp.ndarray: (x, y, z) position of the Plummer sphere after inclination.
    """
    x, y, z = position.T
    phi = jnp.arctan2(y, x)[0]  # Azimuthal angle

    # Rotation matrix around x-axis by inclination
    R_x = jnp.array([
        [1, 0, 0],
        [0, jnp.cos(inclination), -jnp.sin(inclination)],
        [0, jnp.sin(inclination), jnp.cos(inclination)]
    ])

    # Rotate position around x-axis
    rotated_position = R_x @ position.T

    return rotated_position.T

@jaxtyped(typechecker=typechecker)
@partial(jax.jit,)
def inclined_circular_velocity(position: jnp.ndarray, 
                               v_c: jnp.ndarray, 
                               inclination: float):
    """
    Convert circular velocity module on the xy plane to an inclined orbit Cartesian components.
    
    Args:
        position (jnp.ndarray): (x, y, z) position of the Plummer sphere.
        v_c (float): Circular velocity (km/s).
        inclination (float): Inclination angle in radians.
    Returns:
        jnp.ndarray: (v_x, v_y, v_z) velocity components.
    """
    x, y, z = position.T
    phi = jnp.arctan2(y, x)[0] # Azimuthal angle
    # Initial velocity vector
    velocity = jnp.zeros(3)
    velocity = velocity.at[1].set(v_c[0])
    # Rotation matrix around z-axis by phi
    R_z = jnp.array([
        [jnp.cos(phi), -jnp.sin(phi), 0],
        [jnp.sin(phi), jnp.cos(phi), 0],
        [0, 0, 1]
    ])

    # Rotate velocity around z-axis
    velocity = R_z @ velocity

    # Rotation matrix around x-axis by inclination
    R_x = jnp.array([
        [1, 0, 0],
        [0, jnp.cos(inclination), -jnp.sin(inclination)],
        [0, jnp.sin(inclination), jnp.cos(inclination)]
    ])

    # Rotate velocity around x-axis
    rotated_velocity = R_x @ velocity

    return rotated_velocity


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)

    def innermost_line(exc):
        return [fr for fr in traceback.extract_tb(exc.__traceback__) if fr.filename == __file__][-1].lineno

    # notebooks/2body.ipynb, cell 3 (astropy conversions replaced by their values)
    params = SimulationParams(t_end = 0.00212096726789207,  # (1*u.Gyr).to(code_units.code_time).value
                              G=1) #default values
    mass1 = 100.0  # (100*u.Msun).to(code_units.code_mass).value
    mass2 = 1.0  # (1*u.Msun).to(code_units.code_mass).value
    rp = 0.01  # (0.01*u.kpc).to(code_units.code_length).value
    try:
        pos, vel, mass = ic_two_body(mass1, 
                                     mass2, 
                                     rp=rp, 
                                     e=0., 
                                     params=params)
        raise AssertionError("no error")
    except jax.errors.TracerBoolConversionError as exc:
        # observed: line 134 the jitted ic_two_body traces `e`: `if e==1.` raises TracerBoolConversionError
        assert innermost_line(exc) == 134, innermost_line(exc)

    # notebooks/gradient_test/Plummer_in_MNpotential_gradtest.ipynb, cell 5 (first lines)
    # radial distance of the center of mass
    rp=10.0  # 100*u.kpc.to(code_units.code_length)

    #sampling the center of mass on the sphere
    key = random.PRNGKey(42)
    num_samples = 1  # Number of positions to generate
    try:
        pos = sample_position_on_sphere(key, rp, num_samples)
        raise AssertionError("no error")
    except TypeError as exc:
        assert "Shapes must be 1D sequences of concrete values" in str(exc), exc
        # observed: line 168 the traced num_samples is the shape of the phi draw: TypeError, shapes must be concrete (the costheta draw below repeats it, never reached)
        assert innermost_line(exc) == 168, innermost_line(exc)

    # the sibling sampler, whose num_samples is static, runs: one position at distance rp
    pos_com = sample_position_on_circle(key, rp, num_samples)
    assert pos_com.shape == (1, 3) and np.isclose(float(jnp.linalg.norm(pos_com)), rp)
