# source: https://github.com/gbionics/jaxsim/pull/198
#   ("Fix `PlaneTerrain.__eq__` when called in jit context", closing issue #196; the terrain
#   classes of src/jaxsim/terrain/terrain.py before the fix, commit a0fe6993's parent)
# observed on jax 0.10.2 CPU: the model keeps its terrain as static pytree metadata, so when
#   a jitted jaxsim function is called while another function is being traced (the reporter
#   ran a jitted simulation in each Optuna trial; here each trial's new static dt retraces
#   it), JAX checks the new model's metadata against the cached one with
#   PlaneTerrain.__eq__. Under that trace
#   jnp.allclose(self.z, other.z) is a tracer, even on two Python floats, and the `if not
#   (... and ...)` raises TracerBoolConversionError, which JAX re-raises as "ValueError:
#   Exception raised while checking equality of metadata fields of pytree". The first trial
#   runs; the second, with an equal terrain built again, fails. Terrain, FlatTerrain and
#   PlaneTerrain are kept as in jaxsim (docstrings of the first three methods shortened);
#   stand-ins: jax_dataclasses.pytree_dataclass/field (a frozen dataclass registered as a
#   pytree), HashedNumpyArray (its hash_of_array kept as in jaxsim/utils/wrappers.py,
#   imported at the top rather than inside __hash__), the `jaxsim.typing` annotations left
#   as strings, and a cut-down model (a flax struct whose terrain is a static field, as
#   JaxSimModel's `terrain: Static[Terrain]`) with one jitted function of it standing for
#   jaxsim's jitted API. Added: `simulate`, the `objective` of each trial and the __main__
#   block.
# gap: omnistaging
from __future__ import annotations

import abc
import dataclasses
import functools
import types

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct


def _pytree_dataclass(cls):
    # stand-in for jax_dataclasses.pytree_dataclass
    cls = dataclasses.dataclass(frozen=True)(cls)
    return jax.tree_util.register_dataclass(
        cls, data_fields=[f.name for f in dataclasses.fields(cls)], meta_fields=[]
    )


jax_dataclasses = types.SimpleNamespace(
    pytree_dataclass=_pytree_dataclass, field=dataclasses.field
)


class HashedNumpyArray:  # stand-in for jaxsim.utils.wrappers.HashedNumpyArray
    @staticmethod
    def hash_of_array(array, precision: float | None = 1e-9) -> int:
        array = np.array(array).flatten()

        array = np.where(array == np.nan, hash(np.nan), array)
        array = np.where(array == np.inf, hash(np.inf), array)
        array = np.where(array == -np.inf, hash(-np.inf), array)

        if precision is not None:

            integer1 = (array * precision).astype(int)
            integer2 = (array - integer1 / precision).astype(int)

            decimal_array = ((array - integer1 * 1e9 - integer2) / precision).astype(
                int
            )

            array = np.hstack([integer1, integer2, decimal_array]).astype(int)

        return hash(tuple(array.tolist()))


class Terrain(abc.ABC):

    delta = 0.010

    @abc.abstractmethod
    def height(self, x: jtp.FloatLike, y: jtp.FloatLike) -> jtp.Float:
        pass

    def normal(self, x: jtp.FloatLike, y: jtp.FloatLike) -> jtp.Vector:
        """
        Compute the normal vector of the terrain at a specific (x, y) location.
        """

        # https://stackoverflow.com/a/5282364
        h_xp = self.height(x=x + self.delta, y=y)
        h_xm = self.height(x=x - self.delta, y=y)
        h_yp = self.height(x=x, y=y + self.delta)
        h_ym = self.height(x=x, y=y - self.delta)

        n = jnp.array(
            [(h_xm - h_xp) / (2 * self.delta), (h_ym - h_yp) / (2 * self.delta), 1.0]
        )

        return n / jnp.linalg.norm(n)


@jax_dataclasses.pytree_dataclass
class FlatTerrain(Terrain):

    z: float = dataclasses.field(default=0.0, kw_only=True)

    @staticmethod
    def build(height: jtp.FloatLike) -> FlatTerrain:

        return FlatTerrain(z=float(height))

    def height(self, x: jtp.FloatLike, y: jtp.FloatLike) -> jtp.Float:

        return jnp.array(self.z, dtype=float)

    def __hash__(self) -> int:

        return hash(self.z)

    def __eq__(self, other: FlatTerrain) -> bool:

        if not isinstance(other, FlatTerrain):
            return False

        return self.z == other.z


@jax_dataclasses.pytree_dataclass
class PlaneTerrain(FlatTerrain):

    plane_normal: tuple[float, float, float] = jax_dataclasses.field(
        default=(0.0, 0.0, 0.0), kw_only=True
    )

    @staticmethod
    def build(
        plane_normal: jtp.VectorLike, plane_height_over_origin: jtp.FloatLike = 0.0
    ) -> PlaneTerrain:
        """
        Create a PlaneTerrain instance with a specified plane normal vector.
        """

        plane_normal = jnp.array(plane_normal, dtype=float)
        plane_height_over_origin = jnp.array(plane_height_over_origin, dtype=float)

        if plane_normal.shape != (3,):
            msg = "Expected a 3D vector for the plane normal, got '{}'."
            raise ValueError(msg.format(plane_normal.shape))

        # Make sure that the plane normal is a unit vector.
        plane_normal = plane_normal / jnp.linalg.norm(plane_normal)

        return PlaneTerrain(
            z=float(plane_height_over_origin),
            plane_normal=tuple(plane_normal.tolist()),
        )

    def height(self, x: jtp.FloatLike, y: jtp.FloatLike) -> jtp.Float:
        """
        Compute the height of the terrain at a specific (x, y) location on a plane.
        """

        # Equation of the plane:      A x + B y + C z + D = 0
        # Normal vector coordinates:  (A, B, C)
        # The height over the origin: -D/C

        # Get the plane equation coefficients from the terrain normal.
        A, B, C = self.plane_normal

        # Compute the final coefficient D considering the terrain height.
        D = -C * self.z

        # Invert the plane equation to get the height at the given (x, y) coordinates.
        return jnp.array(-(A * x + B * y + D) / C).astype(float)

    def __hash__(self) -> int:

        return hash(
            (
                hash(self.z),
                HashedNumpyArray.hash_of_array(
                    array=jnp.array(self.plane_normal, dtype=float)
                ),
            )
        )

    def __eq__(self, other: PlaneTerrain) -> bool:

        if not isinstance(other, PlaneTerrain):
            return False

        if not (  # expect: JIT101  # tolerate: JIT103
            jnp.allclose(self.z, other.z)
            and jnp.allclose(
                jnp.array(self.plane_normal, dtype=float),
                jnp.array(other.plane_normal, dtype=float),
            )
        ):
            return False

        return True


@struct.dataclass
class Model:
    # stand-in for JaxSimModel: the terrain is static metadata of the pytree
    base_position: jax.Array
    terrain: Terrain = struct.field(pytree_node=False)


@jax.jit
def base_height_over_terrain(model: Model) -> jax.Array:
    # stand-in for a jitted jaxsim API function of the model
    x, y, z = model.base_position
    return z - model.terrain.height(x=x, y=y)


@functools.partial(jax.jit, static_argnames="dt")
def simulate(model: Model, dt: float) -> jax.Array:
    # stand-in for the reporter's simulation: a step of size dt, then a jitted jaxsim call
    model = model.replace(base_position=model.base_position - dt * jnp.array([0.0, 0.0, 1.0]))
    return base_height_over_terrain(model)


def objective(trial: int) -> float:
    # stand-in for the reporter's Optuna objective: build the model, tune dt, simulate
    terrain = PlaneTerrain.build(plane_normal=[0.0, 0.1, 1.0])
    model = Model(base_position=jnp.array([0.0, 1.0, 0.5]), terrain=terrain)
    dt = 0.1 * trial
    return float(simulate(model, dt=dt))


if __name__ == "__main__":
    first = objective(0)
    assert abs(first - 0.6) < 1e-6, first
    try:
        objective(1)
    except ValueError as e:
        cause = e.__cause__
        assert isinstance(cause, jax.errors.TracerBoolConversionError), repr(cause)
        lines = [
            f.lineno
            for f in __import__("traceback").extract_tb(cause.__traceback__)
            if f.filename == __file__
        ]
        # observed: line 187 converts jnp.allclose of two Python floats, a tracer under the
        # second trial's trace of simulate, to bool while JAX compares the terrains of the
        # two models
        assert lines[-1] == 187, lines
    else:
        raise AssertionError("the second trial did not fail")
