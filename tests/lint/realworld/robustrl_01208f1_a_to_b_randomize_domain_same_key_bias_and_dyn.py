# source: https://github.com/Jesperoka/robust_rl/blob/01208f1a56ebbd389ce9e141e3ac5a23eaf0119c/environments/A_to_B_jax.py
# observed on jax 0.10.2 CPU: randomize_domain draws the actuator bias noise and the actuator
#   dynamics noise from the same key `_rngs[9]` (`_rngs[8]` goes to the gain, nothing to a
#   tenth parameter): under jit the multiplicative dynamics noise of every actuator equals the
#   first entries of the bias noise, exactly, so the two "independent" domain randomizations
#   move together.
# gap: other
# (kept as written: randomize_domain and the noise attributes of A_to_B.__init__; trimmed: the
#  rest of the class (reset, step, controllers, spaces, limits, asserts), which needs MuJoCo and
#  the repository's options module. Added: a stand-in for mjx's Model (flax struct dataclasses
#  with the fields randomize_domain reads, and `tree_replace` for the top-level keys it is
#  given), a small options object, `jax._src.random.KeyArray` spelled `jax.Array`, and the
#  `__main__` block.)
from functools import partial
from types import SimpleNamespace

import jax
import jax.numpy as jnp
from flax import struct

KeyArray = jax.Array


@struct.dataclass
class Option:
    # stand-in for mujoco.mjx.Option (the fields randomize_domain perturbs)
    timestep: jax.Array
    impratio: jax.Array
    tolerance: jax.Array
    ls_tolerance: jax.Array
    gravity: jax.Array
    wind: jax.Array
    viscosity: jax.Array
    density: jax.Array


@struct.dataclass
class Model:
    # stand-in for mujoco.mjx.Model
    opt: Option
    actuator_gainprm: jax.Array
    actuator_biasprm: jax.Array
    actuator_dynprm: jax.Array

    def tree_replace(self, params):
        return self.replace(**params)


class A_to_B:
    def __init__(self, mjx_model: Model, options) -> None:
        self.mjx_model: Model = mjx_model

        # Domain randomization. Noises are uniform in [-noise, noise]. (+) additive, [*] multiplicative
        self.timestep_noise:        float = options.timestep_noise      # s         (+)     timestep = timestep + noise
        self.impratio_noise:        float = options.impratio_noise      #           (+)     impratio = impratio + noise
        self.tolerance_noise:       float = options.tolerance_noise     #           (+)     tolerance = tolerance + noise
        self.ls_tolerance_noise:    float = options.ls_tolerance_noise  #           (+)     ls_tolerance = ls_tolerance + noise
        self.wind_noise:            float = options.wind_noise          # m/s       (+)     wind = wind + noise
        self.density_noise:         float = options.density_noise       # kg/m^3    (+)     density = density + noise
        self.viscosity_noise:       float = options.viscosity_noise     # kg/m/s    (+)     visc = visc + noise
        self.gravity_noise:         float = options.gravity_noise       # m/s^2     (+)     gravity = gravity + noise
        self.actuator_gain_noise:   float = options.actuator_gain_noise # fraction  [*]     actuator_gainprm = (1 + noise)*actuator_gainprm 
        self.actuator_bias_noise:   float = options.actuator_bias_noise # fraction  [*]     actuator_biasprm = (1 + noise)*actuator_biasprm 
        self.actuator_dyn_noise:    float = options.actuator_dyn_noise  # fraction  [*]     actuator_dynprm = (1 + noise)*actuator_dynprm 

    def randomize_domain(self, rng: KeyArray) -> Model: # NOTE: this function
        _rngs = jax.random.split(rng, 10)

        return self.mjx_model.tree_replace({ # type: ignore[assignment]
                "opt": self.mjx_model.opt.replace( # type: ignore[assignment]
                    timestep = self.mjx_model.opt.timestep + jax.random.uniform(_rngs[0], minval= -self.timestep_noise, maxval=self.timestep_noise), 
                    impratio = self.mjx_model.opt.impratio + jax.random.uniform(_rngs[1], minval= -self.impratio_noise, maxval=self.impratio_noise), 
                    tolerance = self.mjx_model.opt.tolerance + jax.random.uniform(_rngs[2], minval= -self.tolerance_noise, maxval=self.tolerance_noise), 
                    ls_tolerance = self.mjx_model.opt.ls_tolerance + jax.random.uniform(_rngs[3], minval= -self.ls_tolerance_noise, maxval=self.ls_tolerance_noise), 
                    gravity = self.mjx_model.opt.gravity + jnp.array([0.0, 0.0, jax.random.uniform(_rngs[4], minval= -self.gravity_noise, maxval=self.gravity_noise)]), 
                    wind = self.mjx_model.opt.wind + jax.random.uniform(_rngs[5], shape=self.mjx_model.opt.wind.shape, minval=-self.wind_noise, maxval=self.wind_noise), 
                    viscosity = self.mjx_model.opt.viscosity + jax.random.uniform(_rngs[6], minval=0, maxval=self.viscosity_noise), 
                    density = self.mjx_model.opt.density + jax.random.uniform(_rngs[7], minval=0, maxval=self.density_noise)
                    ),
                    "actuator_gainprm": 
                        self.mjx_model.actuator_gainprm.at[:, 0].set(
                            self.mjx_model.actuator_gainprm[:, 0]* 
                            (1.0 + jax.random.uniform(_rngs[8], shape=self.mjx_model.actuator_gainprm[:, 0].shape, minval= -self.actuator_gain_noise, maxval=self.actuator_gain_noise))
                        ),
                    "actuator_biasprm": 
                        self.mjx_model.actuator_biasprm.at[:, 1:3].set(
                            self.mjx_model.actuator_biasprm[:, 1:3]*
                            (1.0 + jax.random.uniform(_rngs[9], shape=self.mjx_model.actuator_biasprm[:, 1:3].shape, minval= -self.actuator_bias_noise, maxval=self.actuator_bias_noise))
                        ),
                    "actuator_dynprm": 
                        self.mjx_model.actuator_dynprm.at[:, 0].set(
                            self.mjx_model.actuator_dynprm[:, 0]*
                            (1.0 + jax.random.uniform(_rngs[9], shape=self.mjx_model.actuator_dynprm[:, 0].shape, minval= -self.actuator_dyn_noise, maxval=self.actuator_dyn_noise))  # expect: JIT502
                        ),

                })


if __name__ == "__main__":
    nu = 14  # 3 car + 7 arm + 4 gripper actuators, as in the repository's scene
    model = Model(
        opt=Option(
            timestep=jnp.array(0.002), impratio=jnp.array(1.0), tolerance=jnp.array(1e-8),
            ls_tolerance=jnp.array(0.01), gravity=jnp.array([0.0, 0.0, -9.81]),
            wind=jnp.zeros(3), viscosity=jnp.array(0.0), density=jnp.array(0.0),
        ),
        actuator_gainprm=jnp.ones((nu, 10)),
        actuator_biasprm=jnp.ones((nu, 10)),
        actuator_dynprm=jnp.ones((nu, 10)),
    )
    options = SimpleNamespace(
        timestep_noise=0.00005, impratio_noise=0.05, tolerance_noise=0.0, ls_tolerance_noise=0.0,
        wind_noise=0.5, density_noise=0.5, viscosity_noise=0.0002, gravity_noise=0.05,
        actuator_gain_noise=0.1, actuator_bias_noise=0.1, actuator_dyn_noise=0.1,
    )
    env = A_to_B(model, options)
    randomized = jax.jit(env.randomize_domain)(jax.random.PRNGKey(3))

    gain_noise = randomized.actuator_gainprm[:, 0] - 1.0
    bias_noise = (randomized.actuator_biasprm[:, 1:3] - 1.0).ravel()
    dyn_noise = randomized.actuator_dynprm[:, 0] - 1.0
    print("bias noise:", bias_noise[:4])
    print("dyn noise: ", dyn_noise[:4])
    # observed: line 93 draws the dynamics noise from _rngs[9], already used for the bias
    # noise on line 88: every actuator's dynamics noise equals a bias noise draw exactly
    assert jnp.allclose(dyn_noise, bias_noise[:nu], atol=1e-6)
    assert not jnp.allclose(dyn_noise, gain_noise, atol=1e-3)  # the gain's own key differs
