# source: https://github.com/luchris429/JaxLife/blob/40e6fd811621d1f401011ec02bac021fa2443a51/src/main.py
# observed on jax 0.10.2 CPU: main's outer loop calls `jax.jit(world.calc_saliency)(world_state)`
#   once per outer step; `world.calc_saliency` is a new bound-method object at every access, so
#   each outer step traces and compiles calc_saliency again (3 outer steps: 3 compiles, 3
#   traces). `jax.jit(world_scan)` in the same loop jits the same local function object every
#   time and is compiled once (JAX caches it by the function), and gui_loop jits `world.step`
#   once before its loop: neither is a bug.
# gap: per-call-recompile
# added: stand-ins for the repository's World (world/world.py: initialize, a scan-able step
#   that splits the world rng and returns metrics with "num_agents" and "world_state", and
#   calc_saliency, vmapped over agents), WorldState (world/structs.py), Visualizer
#   (visualizer.py) and wandb (Histogram/log/Video/finish/init); the duplicated imports of
#   the original are kept. The original `__main__` block (a 60-key config from argparse, and
#   `args.tune`, which the parser lacks) is replaced by one that runs main with a small
#   config (4 agents, 4 world steps, 3 outer steps, no render) and counts compiles. The parser
#   keeps only the 5 of its 33 arguments that main and the __main__ block read.
import types

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

# ---- stand-ins for wandb, world.structs, world.world and visualizer ----
wandb = types.SimpleNamespace(
    Histogram=lambda v: np.asarray(v), log=lambda *a, **k: None, finish=lambda: None,
    Video=lambda *a, **k: None, init=lambda *a, **k: None)


@struct.dataclass
class WorldState:
    t: int
    agent_states: jnp.ndarray  # agents' energies
    alive: jnp.ndarray
    rng: jnp.ndarray

    @staticmethod
    def clone_no_params(world_state):
        return world_state


class World:
    def __init__(self, config):
        self.config = config

    def initialize(self, rng):
        rng, rng_agents = jax.random.split(rng)
        energy = jax.random.uniform(rng_agents, (self.config["NUM_AGENTS"],)) * self.config["INITIAL_ENERGY"]
        alive = jnp.arange(self.config["NUM_AGENTS"]) < self.config["MIN_AGENTS"] * 2
        return WorldState(t=0, agent_states=energy, alive=alive, rng=rng)

    def step(self, world_state, unused):
        metrics = {}
        rng, _rng = jax.random.split(world_state.rng)
        energy = world_state.agent_states - self.config["LIFE_COST"] + jax.random.uniform(_rng, world_state.alive.shape)
        world_state = world_state.replace(t=world_state.t + 1, agent_states=energy, alive=energy > 0, rng=rng)
        metrics["num_agents"] = jnp.sum(world_state.alive)
        metrics["mean_energy"] = (world_state.agent_states * world_state.alive).sum() / world_state.alive.sum()
        if self.config["RETURN_WORLD_STATE"]:
            metrics["world_state"] = WorldState.clone_no_params(world_state)
        return world_state, metrics

    def calc_saliency(self, world_state):
        SALIENCY_TRACES.append(1)
        saliency = jax.vmap(lambda e: {"agent_comm_2_saliency": jnp.tanh(e)})(world_state.agent_states)
        saliency = jax.tree_util.tree_map(
            lambda x: (x * world_state.alive).sum() / jnp.sum(world_state.alive), saliency)
        return saliency


class Visualizer:
    def __init__(self, config):
        self.config = config

    def render(self, world_states, fname="out.mp4", show=True):
        pass


SALIENCY_TRACES = []
# ---- end of stand-ins ----
import argparse
from datetime import datetime
import copy
import os
import numpy as np
import jax
import jax.numpy as jnp
import argparse
from datetime import datetime
import os

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=42)
parser.add_argument("--wandb", action="store_true")
parser.add_argument("--num-agents", type=int, default=128)
parser.add_argument("--render", action=argparse.BooleanOptionalAction, default=True)
parser.add_argument("--gui", action="store_true")


def gui_loop(world_state: WorldState, visualizer: Visualizer, world: World, config):
    import pygame

    pygame.init()
    upscale = 2
    clock = pygame.time.Clock()
    screen_surface = pygame.display.set_mode(
        (config["IMG_SIZE_W"] * upscale, config["IMG_SIZE_H"] * upscale), display=0
    )

    def _render(pixels):
        screen_surface.fill((0, 0, 0))
        surface = pygame.surfarray.make_surface(np.array(pixels))
        screen_surface.blit(surface, (0, 0))

    step = jax.jit(world.step)
    render = jax.jit(visualizer.render_frame)
    for i in range(config["NUM_WORLD_STEPS"] * config["NUM_OUTER_STEPS"]):
        pygame_events = list(pygame.event.get())
        for event in pygame_events:
            if event.type == pygame.QUIT:
                return
        world_state, metrics = step(world_state, None)
        del metrics["world_state"]
        frame = render(world_state)
        # tile frame upscale by upscale
        frame = np.repeat(np.repeat(frame, upscale, axis=0), upscale, axis=1)
        _render(frame * 255.0)
        pygame.display.flip()
        clock.tick(60)


def main(config):
    world = World(config)
    now = str(datetime.now()).replace(" ", "_")
    render_dir = f"/tmp/renders/{now}"

    if args.render:
        os.makedirs(render_dir, exist_ok=True)
    visualizer = Visualizer(config)

    rng = jax.random.PRNGKey(config["INIT_RNG"])
    world_state = world.initialize(rng)

    if config["GUI"]:
        gui_loop(world_state, visualizer, world, config)
        return

    def world_scan(world_state):
        return jax.lax.scan(world.step, world_state, None, config["NUM_WORLD_STEPS"])

    for i in range(config["NUM_OUTER_STEPS"]):
        out = jax.jit(world_scan)(world_state)

        if args.render and i % config["RENDER_FREQ"] == 0:
            fname = f"{render_dir}/{i:05d}.mp4"
            print(f"RENDERING {fname}")
            visualizer.render(out[1]["world_state"], fname=fname, show=False)
            print(f"SAVING {fname}")
            jnp.save(fname.replace(".mp4", ".npy"), world_state)
            if args.wandb:
                wandb.log({"video": wandb.Video(fname, fps=8, format="mp4")})

        world_state = out[0]
        metrics = {k: wandb.Histogram(v) for k, v in out[1].items() if not k.startswith("world_state")}
        metrics_mean = {f"{k}_mean": v.mean() for k, v in out[1].items() if not k.startswith("world_state")}
        metrics.update(metrics_mean)
        metrics["num_agents_mode"] = jnp.argmax(jnp.bincount(out[1]["num_agents"].astype(jnp.int32)))
        saliency = jax.jit(world.calc_saliency)(world_state)  # expect: JIT301
        metrics.update(saliency)
        metrics["main/comm_saliency"] = saliency["agent_comm_2_saliency"]
        if args.wandb:
            wandb.log(metrics)
        print(i)
        print(out[1]["num_agents"].mean())

    if args.wandb:
        wandb.finish()


if __name__ == "__main__":
    args = parser.parse_args(["--no-render", "--num-agents", "4"])
    config = {
        "NUM_WORLD_STEPS": 4,
        "NUM_AGENTS": args.num_agents,
        "MIN_AGENTS": args.num_agents // 4,
        "INITIAL_ENERGY": 32.0,
        "LIFE_COST": 0.25,
        "INIT_RNG": args.seed,
        "RENDER_FREQ": 8,
        "RETURN_WORLD_STATE": True,
        "GUI": args.gui,
        "NUM_OUTER_STEPS": 3,
    }

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)
    main(config)
    # observed: line 168 compiles calc_saliency at every outer step (3 outer steps: 3 compiles,
    #   3 traces), while jax.jit(world_scan) in the same loop compiles once
    n_sal = sum(1 for f in compiles if f and "calc_saliency" in f)
    n_scan = sum(1 for f in compiles if f and "world_scan" in f)
    assert n_sal == 3 and len(SALIENCY_TRACES) == 3, (compiles, SALIENCY_TRACES)
    assert n_scan == 1, compiles
    print("calc_saliency compiles:", n_sal, "world_scan compiles:", n_scan)
