# source: https://github.com/olincollege/scicomp-p1-eitofis-particles/blob/160feba30efb1b2704bf0d3cc922f8da7dd30856/particles/simulation.py (run.py at the same commit drives it: Simulation(n_particles=8).run(steps=128)); fixed in https://github.com/olincollege/scicomp-p1-eitofis-particles/commit/bf17fc186f514ce02b382d2db7ef6b6b91483ee9 "Handle for immutable jax arrays" (grid_starts = grid_starts.at[cell_start_ids].set(cell_start_idxs))
# observed on jax 0.10.2 CPU: TypeError: JAX arrays are immutable and do not support in-place item assignment, raised at line 41 (grid_starts[cell_start_ids] = cell_start_idxs) on the first step; line 46 (grid_ends[...] = ...) makes the same mistake and raises the same error once line 41 is out of the way
# gap: types
# observed: line 41 raises TypeError (JAX arrays are immutable) on the first step of Simulation(8).run(128)
# observed: line 46 raises the same TypeError when the module is recompiled with line 41 blanked out (line numbers kept)
# (added: the __main__ block, which runs what run.py at the same commit runs, Simulation(8).run(128), catches the error and checks its line; then re-runs the module source with line 41 replaced by `pass` to reach line 46)
import jax.numpy as jnp

class Simulation:
    def __init__(self, n, size=1024, n_cells=16):
        self.grid_size = (size // n_cells) + (size % n_cells > 0)
        self._init_particles(n)

    def _init_particles(self, n):
        self.ids = jnp.arange(0, n)
        self.positions = jnp.zeros((2, n))
        self.velocities = jnp.zeros((2, n))

    def run(self, n):
        for _ in range(n):
            self.step()

    def step(self):
        self._get_collisions()
        self._update_velocities()
        self._move()

    def _build_grid(self):
        grid_positions = self.positions // self.grid_size
        cell_ids = grid_positions[0] + grid_positions[1] * self.grid_size

        cell_particle_ids = jnp.stack([cell_ids, self.ids], axis=-1)
        cell_particle_ids = cell_particle_ids.sort(axis=0)
        cell_particle_idxs = jnp.arange(cell_particle_ids.shape[0])

        is_cell_change = cell_particle_ids[:, 0][1:] != cell_particle_ids[:, 0][:-1]

        cell_start_ids = cell_particle_ids[:-1, 0][is_cell_change]
        cell_start_idxs = cell_particle_idxs[:-1][is_cell_change]
        grid_starts = jnp.zeros(self.grid_size ** 2)
        grid_starts[cell_start_ids] = cell_start_idxs  # expect: JIT501

        cell_end_ids = cell_particle_ids[1:, 0][is_cell_change]
        cell_end_idxs = cell_particle_idxs[1:][is_cell_change]
        grid_ends = jnp.zeros(self.grid_size ** 2) - 1
        grid_ends[cell_end_ids] = cell_end_idxs  # expect: JIT501

        return cell_particle_ids, grid_starts, grid_ends

    def _get_neighbors(self, cell_particle_ids, grid_starts, grid_ends):
        pass

    def _get_broad_collisions(self):
        cell_particle_ids, grid_starts, grid_ends = self._build_grid()
        self._get_neighbors(cell_particle_ids, grid_starts, grid_ends)

    def _get_narrow_collisions(self):
        pass

    def _get_collisions(self):
        self._get_broad_collisions()
        self._get_narrow_collisions()

    def _get_particle_collision_response(self):
        pass

    def _get_wall_collision_response(self):
        pass

    def _update_velocities(self):
        self._get_particle_collision_response()
        self._get_wall_collision_response()

    def _move(self):
        pass


def _error_line(fn):
    import traceback
    try:
        fn()
    except TypeError as e:
        assert "immutable" in str(e), e
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        return frames[-1].lineno
    raise AssertionError("no error")


if __name__ == "__main__":
    import re
    with open(__file__) as fh:
        src = fh.read().splitlines()
    ls = next(i for i, l in enumerate(src, 1) if re.search(r"grid_starts\[cell_start_ids\] = .*# expect", l))
    le = next(i for i, l in enumerate(src, 1) if re.search(r"grid_ends\[cell_end_ids\] = .*# expect", l))

    sim = Simulation(8)
    assert _error_line(lambda: sim.run(128)) == ls

    src[ls - 1] = "        pass"
    ns = {"__name__": "_blanked", "__file__": __file__}
    exec(compile("\n".join(src), __file__, "exec"), ns)
    sim2 = ns["Simulation"](8)
    assert _error_line(lambda: sim2.run(128)) == le
    print("line", ls, "and line", le, "raise: JAX arrays are immutable")
