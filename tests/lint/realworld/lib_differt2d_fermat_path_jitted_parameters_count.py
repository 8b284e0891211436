# source: https://github.com/jeertmans/DiffeRT2d/blob/dee0192a952db5e8ca40a4177240fd4d3845af9c/differt2d/geometry.py
#   (commit "fix jit and remove useless boilerplate": FermatPath.from_tx_objects_rx now jitted
#   with static_argnames=("cls", "steps"); the driver is tests/test_geometry.py's
#   TestFermatPath.test_simple_reflection at the same commit, which the commit stops running
#   under disable_jit())
# observed on jax 0.10.2 CPU: FermatPath.from_tx_objects_rx raises TypeError ("Shapes must be
#   1D sequences of concrete values of integer type, got (JitTracer(~int32[]),)") in
#   jax.random.uniform: Wall.parameters_count is itself a jitted function, so inside the outer
#   jit it returns a traced int32 rather than the Python int 1, and n_unknowns, their sum,
#   becomes a tracer used as a shape. Only the parts of geometry.py that FermatPath needs are
#   kept (path_length, Ray, Point, Wall, Path, parametric_to_cartesian_from_slice, FermatPath);
#   docstrings, plot/bounding_box methods, the Protocol bases from differt2d.abc (Plottable,
#   Parametric, Interactable) and the other Wall methods are cut. The same traced
#   parameters_count() result would next reach the static `size` of
#   parametric_to_cartesian_from_slice inside the nested parametric_to_cartesian, but tracing
#   stops at the shape first, so that line is left unlabelled.
# gap: omnistaging
from functools import partial
from typing import List

import jax
import jax.numpy as jnp
import optax
from jax import jit
from chex import dataclass
from jax import Array


@partial(jax.jit, inline=True)
def path_length(points):
    vectors = jnp.diff(points, axis=0)
    lengths = jnp.linalg.norm(vectors, axis=1)

    return jnp.sum(lengths)


@dataclass
class Ray:
    points: Array  # a b

    @partial(jit, inline=True)
    def origin(self):
        return self.points[0]

    @partial(jit, inline=True)
    def dest(self):
        return self.points[1]

    @partial(jit, inline=True)
    def t(self):
        return self.dest() - self.origin()


@dataclass
class Point:
    point: Array


@dataclass
class Wall(Ray):
    @staticmethod
    @partial(jit, inline=True)
    def parameters_count() -> int:
        return 1

    @jit
    def parametric_to_cartesian(self, param_coords):
        return self.origin() + param_coords * self.t()


@dataclass
class Path:
    points: Array


@partial(jax.jit, static_argnums=(3,))
def parametric_to_cartesian_from_slice(obj, parametric_coords, start, size):
    parametric_coords = jax.lax.dynamic_slice(parametric_coords, (start,), (size,))
    return obj.parametric_to_cartesian(parametric_coords)


@dataclass
class FermatPath(Path):
    @classmethod
    @partial(jit, static_argnames=("cls", "steps"))
    def from_tx_objects_rx(
        cls,
        tx: Point,
        objects: List,
        rx: Point,
        seed: int = 1234,
        steps: int = 100,
    ) -> "FermatPath":
        n = len(objects)
        n_unknowns = sum([obj.parameters_count() for obj in objects])

        jax.debug.print("Hello, minimizing Fermat's path")

        @jit
        def parametric_to_cartesian(parametric_coords):
            cartesian_coords = jnp.empty((n + 2, 2))
            cartesian_coords = cartesian_coords.at[0].set(tx.point)
            cartesian_coords = cartesian_coords.at[-1].set(rx.point)
            j = 0
            for i, obj in enumerate(objects):
                size = obj.parameters_count()
                cartesian_coords = cartesian_coords.at[i + 1].set(
                    parametric_to_cartesian_from_slice(obj, parametric_coords, j, size)
                )
                j += size

            return cartesian_coords

        @jit
        def loss(theta):
            cartesian_coords = parametric_to_cartesian(theta)

            return path_length(cartesian_coords)

        key = jax.random.PRNGKey(seed)
        optimizer = optax.adam(learning_rate=1)
        theta = jax.random.uniform(key, shape=(n_unknowns,))  # expect: JIT404

        f_and_df = jax.value_and_grad(loss)
        opt_state = optimizer.init(theta)

        def f(carry, x):
            theta, opt_state = carry
            loss, grads = f_and_df(theta)
            updates, opt_state = optimizer.update(grads, opt_state)
            theta = theta + updates
            carry = (theta, opt_state)
            return carry, loss

        (theta, _), _ = jax.lax.scan(f, init=(theta, opt_state), xs=None, length=steps)

        points = parametric_to_cartesian(theta)

        return FermatPath(points=points)


# tests/test_geometry.py at the same commit, TestFermatPath.test_simple_reflection
wall = Wall(points=jnp.array([[0.0, 0.0], [2.0, 0.0]]))
tx = Point(point=jnp.array([0.0, 1.0]))
rx = Point(point=jnp.array([2.0, 1.0]))
expected_points = jnp.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]])
got = FermatPath.from_tx_objects_rx(tx, [wall], rx, seed=1234, steps=100)
print(got.points)
