"""Keyword arguments bound with functools.partial before jit are Python values, not tracers."""

import dataclasses
import functools

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class TileConfig:
    tile_m: int
    tile_n: int
    epi_tile_n: int | None = None
    max_steps: int = 2


def tiled_matmul(lhs, rhs, *, config, dtype=jnp.float32):
    if config.max_steps < 2:
        raise ValueError("max_steps must be >= 2")
    epi_tile_n = config.epi_tile_n or config.tile_n
    if config.tile_n % epi_tile_n != 0:
        raise ValueError("tile_n must be divisible by epi_tile_n")
    return (lhs @ rhs).astype(dtype)


def build(config, **kwargs):
    return jax.jit(functools.partial(tiled_matmul, config=config, **kwargs))


def run(lhs, rhs):
    kernel = build(TileConfig(128, 128), dtype=jnp.bfloat16)
    return kernel(lhs, rhs)


def scaled_matmul(lhs, rhs, scale):
    if scale > 1.0:  # expect: JIT101
        lhs = lhs / scale
    return lhs @ rhs


scaled_matmul_jit = jax.jit(functools.partial(scaled_matmul))
