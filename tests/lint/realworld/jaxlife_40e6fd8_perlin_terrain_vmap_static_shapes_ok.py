# source: https://github.com/luchris429/JaxLife/blob/40e6fd811621d1f401011ec02bac021fa2443a51/src/maps/perlin_map.py (with src/maps/noise.py at the same commit, which it imports)
# observed on jax 0.10.2 CPU: the Perlin terrain of JaxLife runs under jit as written: the
#   vmapped generate_fractal_noise_2d gets the map shape, the noise resolution, the octave
#   count and the interpolant with in_axes=None, so they stay Python values inside the trace
#   and every shape, `range(octaves)` and slice bound is static; only the keys and the noise
#   angles are mapped. jax.jit(perlin.initialize) and jax.jit(perlin.update) each compile
#   once and a second call with a new key reuses the compilation, with finite terrain in
#   [0, 1] x the configured maxima, different for different keys.
# gap: exemption-vs-JAX
# added: noise.py's functions inlined above the Perlin class (its matplotlib `main` left out);
#   a stand-in for world.structs.TerrainState (a flax struct with the 8 fields used) and for
#   the world state that update reads (terrain, base_terrain, noise_angles); `jax.tree_map`
#   (removed from JAX) spelled `jax.tree_util.tree_map`; the __main__ block with a small config.
import math

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class TerrainState:  # stand-in for world.structs.TerrainState
    energy_amt: jnp.ndarray
    move_cost: jnp.ndarray
    push_cost: jnp.ndarray
    energy_gain: jnp.ndarray
    message_cost: jnp.ndarray
    reproduce_cost: jnp.ndarray
    max_energy: jnp.ndarray
    bits: jnp.ndarray


@struct.dataclass
class WorldState:  # stand-in for the fields of world.structs.WorldState that update reads
    terrain: TerrainState
    base_terrain: TerrainState
    noise_angles: TerrainState


# ---- src/maps/noise.py ----
def interpolant(t):
    return t * t * t * (t * (t * 6 - 15) + 10)


def generate_perlin_noise_2d(rng, shape, res, interpolant=interpolant, override_angles=None):
    delta = (res[0] / shape[0], res[1] / shape[1])
    d = (shape[0] // res[0], shape[1] // res[1])
    grid = jnp.mgrid[0 : res[0] : delta[0], 0 : res[1] : delta[1]].transpose(1, 2, 0) % 1

    # Gradients
    rng, _rng = jax.random.split(rng)
    if override_angles is not None:
        angles = 2 * jnp.pi * override_angles
    else:
        angles = 2 * jnp.pi * jax.random.uniform(_rng, (res[0] + 1, res[1] + 1))
    gradients = jnp.dstack((jnp.cos(angles), jnp.sin(angles)))
    gradients = gradients.repeat(d[0], 0).repeat(d[1], 1)
    g00 = gradients[: -d[0], : -d[1]]
    g10 = gradients[d[0] :, : -d[1]]
    g01 = gradients[: -d[0], d[1] :]
    g11 = gradients[d[0] :, d[1] :]

    # Ramps
    n00 = jnp.sum(jnp.dstack((grid[:, :, 0], grid[:, :, 1])) * g00, 2)
    n10 = jnp.sum(jnp.dstack((grid[:, :, 0] - 1, grid[:, :, 1])) * g10, 2)
    n01 = jnp.sum(jnp.dstack((grid[:, :, 0], grid[:, :, 1] - 1)) * g01, 2)
    n11 = jnp.sum(jnp.dstack((grid[:, :, 0] - 1, grid[:, :, 1] - 1)) * g11, 2)

    # Interpolation
    t = interpolant(grid)
    n0 = n00 * (1 - t[:, :, 0]) + t[:, :, 0] * n10
    n1 = n01 * (1 - t[:, :, 0]) + t[:, :, 0] * n11
    return jnp.sqrt(2) * ((1 - t[:, :, 1]) * n0 + t[:, :, 1] * n1)


def generate_fractal_noise_2d(
    rng, shape, res, octaves=1, persistence=0.5, lacunarity=2, interpolant=interpolant, override_angles=None
):
    noise = jnp.zeros(shape)
    frequency = 1
    amplitude = 1
    for _ in range(octaves):
        rng, _rng = jax.random.split(rng)
        noise += amplitude * generate_perlin_noise_2d(
            _rng, shape, (frequency * res[0], frequency * res[1]), interpolant, override_angles=override_angles
        )
        frequency *= lacunarity
        amplitude *= persistence

    # Normalise
    noise = (noise - noise.min()) / (noise.max() - noise.min())

    return noise


# ---- src/maps/perlin_map.py ----
class Perlin:
    def __init__(self, config):
        self.config = config
        self.noise_res = (config["PERLIN_RES"], config["PERLIN_RES"])
        self.noise_angles_shape = (self.noise_res[0] + 1, self.noise_res[1] + 1)

    def _regenerate_base_state_from_angles(self, rng, noise_angles):
        map_shape = (self.config["MAP_SIZE"], self.config["MAP_SIZE"])

        rng, _rng = jax.random.split(rng)
        rngs = jax.random.split(_rng, 7)

        override_angles = jnp.stack(
            [
                noise_angles.energy_amt,
                noise_angles.move_cost,
                noise_angles.push_cost,
                noise_angles.energy_gain,
                noise_angles.message_cost,
                noise_angles.reproduce_cost,
                noise_angles.max_energy,
            ],
            axis=0,
        )
        perlin_maps = jax.vmap(
            generate_fractal_noise_2d,
            in_axes=(0, None, None, None, None, None, None, 0),
        )(rngs, map_shape, self.noise_res, 1, 0.5, 2, interpolant, override_angles)

        return TerrainState(
            energy_amt=perlin_maps[0] * 0.0,
            move_cost=perlin_maps[1] * self.config["MAX_TERRAIN_MOVE_COST"],
            push_cost=perlin_maps[2] * self.config["MAX_TERRAIN_PUSH_COST"],
            energy_gain=perlin_maps[3] * self.config["MAX_TERRAIN_ENERGY_GAIN"],
            message_cost=perlin_maps[4] * self.config["MAX_TERRAIN_MESSAGE_COST"],
            reproduce_cost=perlin_maps[5] * self.config["MAX_TERRAIN_REPRODUCE_COST"],
            max_energy=perlin_maps[6] * self.config["MAX_TERRAIN_ENERGY"],
            # bits=jax.random.uniform(
            #     rngs[7], shape=(self.config["MAP_SIZE"], self.config["MAP_SIZE"])
            # ),
            bits=jnp.zeros((self.config["MAP_SIZE"], self.config["MAP_SIZE"]), dtype=jnp.float32),
        )

    def initialize(self, rng):
        rng, _rng = jax.random.split(rng)
        rngs = jax.random.split(_rng, 7)
        noise_angles = TerrainState(
            energy_amt=jax.random.uniform(rngs[0], self.noise_angles_shape) * 2 * math.pi,
            move_cost=jax.random.uniform(rngs[1], self.noise_angles_shape) * 2 * math.pi,
            push_cost=jax.random.uniform(rngs[2], self.noise_angles_shape) * 2 * math.pi,
            energy_gain=jax.random.uniform(rngs[3], self.noise_angles_shape) * 2 * math.pi,
            message_cost=jax.random.uniform(rngs[4], self.noise_angles_shape) * 2 * math.pi,
            reproduce_cost=jax.random.uniform(rngs[5], self.noise_angles_shape) * 2 * math.pi,
            max_energy=jax.random.uniform(rngs[6], self.noise_angles_shape) * 2 * math.pi,
            bits=jnp.zeros(self.noise_angles_shape, dtype=jnp.float32),
        )

        rng, _rng = jax.random.split(rng)
        base_state = self._regenerate_base_state_from_angles(_rng, noise_angles)
        base_state = base_state.replace(energy_amt=base_state.max_energy)

        return base_state, base_state, noise_angles

    def update(self, world_state, rng):
        # Perturb noise angles
        map_shape = (self.config["MAP_SIZE"], self.config["MAP_SIZE"])

        rng, _rng = jax.random.split(rng)
        rngs = jax.random.split(_rng, 7)
        noise_angle_add = TerrainState(
            bits=jnp.zeros(self.noise_angles_shape, dtype=jnp.float32),
            energy_amt=jax.random.uniform(rngs[0], self.noise_angles_shape) * self.config["WEATHER_CHANGE_SPEED"],
            move_cost=jax.random.uniform(rngs[1], self.noise_angles_shape) * self.config["WEATHER_CHANGE_SPEED"],
            push_cost=jax.random.uniform(rngs[2], self.noise_angles_shape) * self.config["WEATHER_CHANGE_SPEED"],
            energy_gain=jax.random.uniform(rngs[3], self.noise_angles_shape) * self.config["WEATHER_CHANGE_SPEED"],
            message_cost=jax.random.uniform(rngs[4], self.noise_angles_shape) * self.config["WEATHER_CHANGE_SPEED"],
            reproduce_cost=jax.random.uniform(rngs[5], self.noise_angles_shape) * self.config["WEATHER_CHANGE_SPEED"],
            max_energy=jax.random.uniform(rngs[6], self.noise_angles_shape) * self.config["WEATHER_CHANGE_SPEED"],
        )
        new_noise_angles = jax.tree_util.tree_map(lambda x, y: x + y, world_state.noise_angles, noise_angle_add)

        # Regenerate base state
        rng, _rng = jax.random.split(rng)
        new_base_terrain = self._regenerate_base_state_from_angles(_rng, new_noise_angles)

        # Regress to base state and grow energy
        regress_speed = (
            world_state.base_terrain.max_energy / self.config["MAX_TERRAIN_ENERGY"] * self.config["TERRAIN_ALPHA"]
        )

        new_terrain = world_state.terrain.replace(
            energy_amt=world_state.terrain.energy_amt
            + (
                world_state.terrain.energy_gain
                - self.config["MAX_TERRAIN_ENERGY_GAIN"] / self.config["TERRAIN_GAIN_SCALING"]
            ),
            move_cost=regress_speed * world_state.base_terrain.move_cost
            + (1 - regress_speed) * world_state.terrain.move_cost,
            push_cost=regress_speed * world_state.base_terrain.push_cost
            + (1 - regress_speed) * world_state.terrain.push_cost,
            energy_gain=regress_speed * world_state.base_terrain.energy_gain
            + (1 - regress_speed) * world_state.terrain.energy_gain,
            message_cost=regress_speed * world_state.base_terrain.message_cost
            + (1 - regress_speed) * world_state.terrain.message_cost,
            reproduce_cost=regress_speed * world_state.base_terrain.reproduce_cost
            + (1 - regress_speed) * world_state.terrain.reproduce_cost,
        )

        return new_terrain, new_base_terrain, new_noise_angles


if __name__ == "__main__":
    config = {
        "PERLIN_RES": 4, "MAP_SIZE": 32, "MAX_TERRAIN_MOVE_COST": 4.0, "MAX_TERRAIN_PUSH_COST": 4.0,
        "MAX_TERRAIN_ENERGY_GAIN": 1.0, "MAX_TERRAIN_MESSAGE_COST": 0.25,
        "MAX_TERRAIN_REPRODUCE_COST": 1.0, "MAX_TERRAIN_ENERGY": 8, "WEATHER_CHANGE_SPEED": 0.001,
        "TERRAIN_ALPHA": 0.005, "TERRAIN_GAIN_SCALING": 1.5,
    }
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    perlin = Perlin(config)
    init = jax.jit(perlin.initialize)
    update = jax.jit(perlin.update)
    terrain, base, angles = init(jax.random.PRNGKey(0))
    terrain2, _, _ = init(jax.random.PRNGKey(1))
    assert terrain.max_energy.shape == (32, 32)
    assert jnp.all(jnp.isfinite(terrain.max_energy))
    assert 0.0 <= float(terrain.max_energy.min()) and float(terrain.max_energy.max()) <= 8.0 + 1e-5
    assert not jnp.allclose(terrain.max_energy, terrain2.max_energy)

    world_state = WorldState(terrain=terrain, base_terrain=base, noise_angles=angles)
    for seed in range(3):
        terrain_u, base_u, angles_u = update(world_state, jax.random.PRNGKey(10 + seed))
        world_state = WorldState(terrain=terrain_u, base_terrain=base_u, noise_angles=angles_u)
    assert jnp.all(jnp.isfinite(terrain_u.move_cost))
    assert float(jnp.abs(angles_u.max_energy - angles.max_energy).max()) <= 3 * 0.001 + 1e-6
    n_init = sum(1 for f in compiles if f and "initialize" in f)
    n_update = sum(1 for f in compiles if f and "update" in f)
    assert n_init == 1 and n_update == 1, compiles
    print("initialize/update compiled", n_init, n_update, "times")
