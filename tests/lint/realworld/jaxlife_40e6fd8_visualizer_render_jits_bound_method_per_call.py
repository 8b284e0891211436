# source: https://github.com/luchris429/JaxLife/blob/40e6fd811621d1f401011ec02bac021fa2443a51/src/visualizer.py
# observed on jax 0.10.2 CPU: Visualizer.render jits `self.render_frame` afresh on every call;
#   the bound method is a new object at each access, so each render (main.py at the same commit
#   calls it every RENDER_FREQ outer steps, with world states of the same shapes) traces and
#   compiles render_frame again: 2 renders, 2 compiles of render_frame.
# gap: per-call-recompile
# added: a stand-in for mediapy (VideoWriter collecting frames, show_video/read_video) and for
#   the world states main.py hands to render (flax structs with the fields render_pixel reads);
#   `jax.tree_map` (removed from JAX) spelled `jax.tree_util.tree_map`; the __main__ block with
#   a small config (16x16 image, 4 agents, 2 bots, 3 frames) rendering twice as main does.
#   Two commented-out blocks of render_pixel (an old lax.switch and a TERRAIN_RENDER_BITS
#   branch) are left out.
import types

import jax
import jax.numpy as jnp
import flax.linen as nn
from flax import struct
import tqdm


# ---- stand-in for mediapy ----
class _VideoWriter:
    def __init__(self, fname, shape, fps, crf):
        self.frames = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        WRITTEN.append(self.frames)
        return False

    def add_image(self, image):
        self.frames.append(image)


WRITTEN = []
media = types.SimpleNamespace(VideoWriter=_VideoWriter, show_video=lambda v: None, read_video=lambda f: None)
# ---- end of stand-in ----


class Visualizer:
    def __init__(self, config):
        self.config = config

    def calc_dists(self, agent_coord, pixel_coord):
        return jnp.linalg.norm(agent_coord - pixel_coord)

    def render_pixel(self, world_state, coords):
        """
        This also seems horrendously inefficient...
        """
        agent_coords = jnp.stack([world_state.agent_states.pos_x, world_state.agent_states.pos_y], axis=-1)
        agent_dists = jax.vmap(self.calc_dists, in_axes=(0, None))(agent_coords, coords)
        agent_dists = agent_dists + (1.0 - world_state.agent_states.alive) * 1000.0
        agent_dists = agent_dists.min()
        bot_coords = jnp.stack([world_state.bot_states.pos_x, world_state.bot_states.pos_y], axis=-1)
        bot_dists = jax.vmap(self.calc_dists, in_axes=(0, None))(bot_coords, coords)
        bot_dists = bot_dists + (1.0 - world_state.bot_states.alive) * 1000.0
        iii = bot_dists.argmin()
        bot_bit = world_state.bot_states.memory[iii, -1]
        bot_dists = bot_dists.min()

        terrain_val_energy_amt = (
            world_state.terrain.energy_amt[
                (coords[0] // self.config["CELL_SIZE"]).astype(jnp.int32),
                (coords[1] // self.config["CELL_SIZE"]).astype(jnp.int32),
            ].astype(float)
            / world_state.terrain.max_energy[
                (coords[0] // self.config["CELL_SIZE"]).astype(jnp.int32),
                (coords[1] // self.config["CELL_SIZE"]).astype(jnp.int32),
            ]
        )

        terrain_val_max_energy = (
            world_state.terrain.max_energy[
                (coords[0] // self.config["CELL_SIZE"]).astype(jnp.int32),
                (coords[1] // self.config["CELL_SIZE"]).astype(jnp.int32),
            ].astype(float)
            / self.config["MAX_TERRAIN_ENERGY"]
        )

        terrain_val_move_cost = (
            +world_state.terrain.move_cost[
                (coords[0] // self.config["CELL_SIZE"]).astype(jnp.int32),
                (coords[1] // self.config["CELL_SIZE"]).astype(jnp.int32),
            ].astype(float)
            / self.config["MAX_TERRAIN_MOVE_COST"]
        )

        terrain_scalar = (terrain_val_max_energy - terrain_val_move_cost + 1.0) / 2.0
        terrain_scalar = jnp.clip(terrain_scalar, 0.0, 1.0)

        terrain_scalar_int = terrain_scalar
        # terrain_scalar_int -= (terrain_scalar_int < 0.5) * 0.14
        # terrain_scalar_int += (terrain_scalar_int > 0.5) * 0.14
        # terrain_scalar_int = jnp.clip(terrain_scalar_int, 0., 1.)
        terrain_scalar_int = jnp.floor(terrain_scalar_int * 2).astype(int)

        water_colour = jnp.array([35, 137, 218]) / 255.0
        dark_water_colour = jnp.array([15, 94, 156]) / 255.0
        sand_colour = jnp.array([246, 215, 176]) / 255.0
        grass_colour = jnp.array([19, 109, 21]) / 255.0
        green_grass_colour = jnp.array([65, 152, 10]) / 255.0
        mud_colour = jnp.array([112, 84, 62]) / 255.0
        dark_sand_colour = jnp.array([225, 191, 146]) / 255.0

        tg = (terrain_scalar - 0.5) * 2
        mixed_grass_colour = tg * green_grass_colour + (1 - tg) * grass_colour

        tw = terrain_scalar * 2
        mixed_water_colour = tw * water_colour + (1 - tw) * dark_water_colour

        terrain_val = jax.lax.switch(
            terrain_scalar_int,
            [
                lambda: mixed_water_colour,
                # lambda: terrain_val_energy_amt * sand_colour + (1 - terrain_val_energy_amt) * dark_sand_colour,
                lambda: terrain_val_energy_amt * mixed_grass_colour + (1 - terrain_val_energy_amt) * mud_colour,
            ],
        )

        agent_val = (
            nn.relu(self.config["AGENT_RADIUS"] - agent_dists)
            * jnp.array([1.0, 0.0, 0.0])
            / self.config["AGENT_RADIUS"]
        )
        bot_colour = jnp.array([0.7, 0.7, 0.7])
        if self.config.get("BOT_RENDER_BITS", False):
            bot_colour = jnp.array([0.7, 0, 0]) * bot_bit + (1 - bot_bit) * jnp.array([0.0, 0.7, 0])
        bot_val = nn.relu(self.config["BOT_RADIUS"] - bot_dists) * bot_colour / self.config["BOT_RADIUS"]
        entity_val = jnp.where(agent_dists < bot_dists, agent_val, bot_val)
        pixel_val = jnp.where(
            jnp.logical_or(
                agent_dists < self.config["AGENT_RADIUS"],
                bot_dists < self.config["BOT_RADIUS"],
            ),
            entity_val,
            terrain_val,
        )
        return pixel_val

    def render_frame(self, world_state):
        w, h = self.config["IMG_SIZE_W"], self.config["IMG_SIZE_H"]
        min_x, min_y = 0, 0
        max_x, max_y = (
            self.config["MAP_SIZE"] * self.config["CELL_SIZE"],
            self.config["MAP_SIZE"] * self.config["CELL_SIZE"],
        )
        coords = jnp.mgrid[min_x : max_x : complex(0, w), min_y : max_y : complex(0, h)].reshape(2, -1).T
        pixel_vals = jax.vmap(self.render_pixel, in_axes=(None, 0))(world_state, coords)
        img = pixel_vals.reshape((w, h, 3))
        return img

    def render_frame_idx(self, world_states, i):
        return self.render_frame(jax.tree_util.tree_map(lambda x: x[i], world_states))

    def render(self, world_states, fname="out.mp4", show=True):
        first_frame = jax.jit(self.render_frame)(jax.tree_util.tree_map(lambda x: x[0], world_states))  # expect: JIT301
        with media.VideoWriter(fname, shape=first_frame.shape[:2], fps=self.config["FPS"], crf=18) as video:
            video.add_image(first_frame)
            for i in tqdm.trange(1, len(world_states.t)):
                frame = self.render_frame(jax.tree_util.tree_map(lambda x: x[i], world_states))
                # frame = jax.jit(self.render_frame_idx)(world_states, i)
                video.add_image(frame)
        if show:
            media.show_video(media.read_video(fname))


# ---- stand-ins for the world states main.py renders ----
@struct.dataclass
class _Entities:
    pos_x: jnp.ndarray
    pos_y: jnp.ndarray
    alive: jnp.ndarray
    memory: jnp.ndarray


@struct.dataclass
class _Terrain:
    energy_amt: jnp.ndarray
    max_energy: jnp.ndarray
    move_cost: jnp.ndarray


@struct.dataclass
class _WorldStates:
    t: jnp.ndarray
    agent_states: _Entities
    bot_states: _Entities
    terrain: _Terrain


def _world_states(key, n_frames, config):
    ks = jax.random.split(key, 6)
    size = config["MAP_SIZE"] * config["CELL_SIZE"]
    ents = lambda k, n: _Entities(
        pos_x=jax.random.uniform(k, (n_frames, n)) * size, pos_y=jax.random.uniform(jax.random.fold_in(k, 1), (n_frames, n)) * size,
        alive=jnp.ones((n_frames, n)), memory=jnp.zeros((n_frames, n, 4)))
    m = config["MAP_SIZE"]
    terrain = _Terrain(
        energy_amt=jax.random.uniform(ks[2], (n_frames, m, m)) * 4, max_energy=4 + jax.random.uniform(ks[3], (n_frames, m, m)) * 4,
        move_cost=jax.random.uniform(ks[4], (n_frames, m, m)) * 4)
    return _WorldStates(t=jnp.arange(n_frames), agent_states=ents(ks[0], 4), bot_states=ents(ks[1], 2), terrain=terrain)


if __name__ == "__main__":
    config = {"IMG_SIZE_W": 16, "IMG_SIZE_H": 16, "MAP_SIZE": 8, "CELL_SIZE": 8, "FPS": 8,
              "AGENT_RADIUS": 4, "BOT_RADIUS": 8, "MAX_TERRAIN_ENERGY": 8, "MAX_TERRAIN_MOVE_COST": 4}
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)
    visualizer = Visualizer(config)
    # main.py: visualizer.render(out[1]["world_state"], fname=fname, show=False) every RENDER_FREQ outer steps
    for i in range(2):
        visualizer.render(_world_states(jax.random.PRNGKey(i), 3, config), fname=f"/tmp/{i:05d}.mp4", show=False)
    assert len(WRITTEN) == 2 and all(len(v) == 3 and v[0].shape == (16, 16, 3) for v in WRITTEN)
    # observed: line 160 compiles render_frame again at every render call (2 renders of
    #   same-shaped world states: 2 compiles)
    n = sum(1 for f in compiles if f and "render_frame" in f)
    assert n == 2, compiles
    print("render_frame compiled", n, "times for 2 renders")
