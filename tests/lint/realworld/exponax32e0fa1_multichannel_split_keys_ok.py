# source: https://github.com/Ceyron/exponax/blob/32e0fa1b9bbea8bcef157cfcc53bbf8351e78647/exponax/ic/_multi_channel.py (commit "Fix crucial bug in multichannel ic generation")
# observed on jax 0.10.2 CPU: runs clean; each channel gets its own split key, so the channels differ (eager and under eqx.filter_jit)
# gap: flow-sensitive
# added: imports; GaussianRandomField, BaseIC and BaseRandomICGenerator copied from exponax/ic/*.py at the parent commit 1a79211, with the
# _spectral/_utils helpers they use (build_scaled_wavenumbers, space_indices, spatial_shape, wavenumber_shape, make_grid) inlined
# in shortened form; _RandomOffsetIC is a stand-in generator that implements gen_ic_fun (no generator of that commit did);
# the __main__ block.
from abc import ABC, abstractmethod
from typing import List

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr
from jaxtyping import Array, Float, PRNGKeyArray


# --- helpers from exponax/_spectral.py and exponax/_utils.py (shortened) ---
def build_scaled_wavenumbers(D, L, N, *, indexing="ij"):
    right_most_wavenumbers = jnp.fft.rfftfreq(N, 1 / N)
    other_wavenumbers = jnp.fft.fftfreq(N, 1 / N)
    wavenumber_list = [other_wavenumbers] * (D - 1) + [right_most_wavenumbers]
    wavenumbers = jnp.stack(jnp.meshgrid(*wavenumber_list, indexing=indexing))
    return 2 * jnp.pi / L * wavenumbers


def space_indices(num_spatial_dims):
    return tuple(range(-num_spatial_dims, 0))


def spatial_shape(num_spatial_dims, num_points):
    return (num_points,) * num_spatial_dims


def wavenumber_shape(num_spatial_dims, num_points):
    return (num_points,) * (num_spatial_dims - 1) + (num_points // 2 + 1,)


def make_grid(num_spatial_dims, domain_extent, num_points, *, indexing="ij"):
    grid_1d = jnp.linspace(0.0, domain_extent, num_points + 1)[:-1]
    return jnp.stack(jnp.meshgrid(*([grid_1d] * num_spatial_dims), indexing=indexing))


# --- exponax/ic/_base_ic.py ---
class BaseIC(eqx.Module, ABC):
    @abstractmethod
    def __call__(self, x: Float[Array, "D ... N"]) -> Float[Array, "1 ... N"]:
        pass


class BaseRandomICGenerator(eqx.Module):
    num_spatial_dims: int
    domain_extent: float
    indexing: str = "ij"

    def gen_ic_fun(self, num_points: int, *, key: PRNGKeyArray) -> BaseIC:
        raise NotImplementedError(
            "This random ic generator cannot represent its initial condition as a function. Directly evaluate it."
        )

    def __call__(
        self,
        num_points: int,
        *,
        key: PRNGKeyArray,
    ) -> Float[Array, "1 ... N"]:
        ic_fun = self.gen_ic_fun(num_points, key=key)
        grid = make_grid(
            self.num_spatial_dims,
            self.domain_extent,
            num_points,
            indexing=self.indexing,
        )
        return ic_fun(grid)


# --- exponax/ic/_gaussian_random_field.py ---
class GaussianRandomField(BaseRandomICGenerator):
    num_spatial_dims: int
    domain_extent: float
    powerlaw_exponent: float
    normalize: bool

    def __init__(
        self,
        num_spatial_dims: int,
        domain_extent: float = 1.0,
        *,
        powerlaw_exponent: float = 3.0,
        normalize: bool = True,
    ):
        self.num_spatial_dims = num_spatial_dims
        self.domain_extent = domain_extent
        self.powerlaw_exponent = powerlaw_exponent
        self.normalize = normalize

    def __call__(
        self, num_points: int, *, key: PRNGKeyArray
    ) -> Float[Array, "1 ... N"]:
        wavenumber_grid = build_scaled_wavenumbers(
            self.num_spatial_dims, self.domain_extent, num_points
        )
        wavenumer_norm_grid = jnp.linalg.norm(wavenumber_grid, axis=0, keepdims=True)
        amplitude = jnp.power(wavenumer_norm_grid, -self.powerlaw_exponent / 2.0)
        amplitude = (
            amplitude.flatten().at[0].set(0.0).reshape(wavenumer_norm_grid.shape)
        )

        real_key, imag_key = jr.split(key, 2)
        noise = jr.normal(
            real_key,
            shape=(1,) + wavenumber_shape(self.num_spatial_dims, num_points),
        ) + 1j * jr.normal(
            imag_key,
            shape=(1,) + wavenumber_shape(self.num_spatial_dims, num_points),
        )

        noise = noise * amplitude

        ic = jnp.fft.irfftn(
            noise,
            s=spatial_shape(self.num_spatial_dims, num_points),
            axes=space_indices(self.num_spatial_dims),
        )

        if self.normalize:
            ic = ic - jnp.mean(ic)
            ic = ic / jnp.std(ic)

        return ic


# --- exponax/ic/_multi_channel.py (after the fix) ---
class MultiChannelIC(eqx.Module):
    initial_conditions: List[BaseIC]

    def __call__(self, x: Float[Array, "D ... N"]) -> Float[Array, "C ... N"]:
        """
        Evaluate the initial condition.

        **Arguments**:
            - `x`: The grid points.

        **Returns**:
            - `u`: The initial condition evaluated at the grid points.
        """
        return jnp.concatenate([ic(x) for ic in self.initial_conditions], axis=0)


class RandomMultiChannelICGenerator(eqx.Module):
    ic_generators: List[BaseRandomICGenerator]

    def gen_ic_fun(self, num_points: int, *, key: PRNGKeyArray) -> MultiChannelIC:
        ic_funs = [
            ic_gen.gen_ic_fun(num_points, key=k)
            for (ic_gen, k) in zip(
                self.ic_generators,
                jax.random.split(key, len(self.ic_generators)),
            )
        ]
        return MultiChannelIC(ic_funs)

    def __call__(
        self, num_points: int, *, key: PRNGKeyArray
    ) -> Float[Array, "C ... N"]:
        u_list = [
            ic_gen(num_points, key=k)
            for (ic_gen, k) in zip(
                self.ic_generators,
                jax.random.split(key, len(self.ic_generators)),
            )
        ]
        return jnp.concatenate(u_list, axis=0)


# --- stand-in generator that implements gen_ic_fun ---
class _OffsetIC(BaseIC):
    offset: Array

    def __call__(self, x):
        return jnp.zeros_like(x[:1]) + self.offset


class _RandomOffsetIC(BaseRandomICGenerator):
    def gen_ic_fun(self, num_points, *, key):
        return _OffsetIC(jr.uniform(key, ()))


if __name__ == "__main__":
    N = 32
    key = jr.PRNGKey(0)

    gen = RandomMultiChannelICGenerator([GaussianRandomField(2)] * 3)
    u = gen(N, key=key)
    u_jit = eqx.filter_jit(lambda k: gen(N, key=k))(key)
    u_vmap = jax.vmap(lambda k: gen(N, key=k))(jr.split(key, 4))  # tolerate: JIT502
    assert not jnp.allclose(u[0], u[1]) and not jnp.allclose(u[1], u[2])
    assert jnp.allclose(u, u_jit, atol=1e-5)
    assert u_vmap.shape == (4, 3, N, N)
    print("channels differ:", not bool(jnp.allclose(u[0], u[1])))

    gen2 = RandomMultiChannelICGenerator([_RandomOffsetIC(1, 1.0)] * 3)
    ic_fun = gen2.gen_ic_fun(N, key=key)
    offsets = [float(ic.offset) for ic in ic_fun.initial_conditions]
    print("channel offsets (gen_ic_fun):", offsets)
    assert len(set(offsets)) == 3
