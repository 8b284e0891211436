from functools import partial

import jax
import jax.numpy as jnp

from .. import utils
from ..models import *
from ..models import apply_mlp
from ..models.mlp import sparsity
from ..utils import numerics


@jax.jit
def train_step(params, x, y):
    pred = apply_mlp(params, x)
    gate = jnp.mean(pred) > 0
    pred = gated(pred, gate)
    return jnp.mean((pred - y) ** 2)


@partial(jax.jit, static_argnames="limit")
def bounded_step(params, x, limit):
    h = dense(params[0], x)
    return numerics.clamp(h, limit)


@jax.jit
def sparsity_step(params, x):
    return sparsity(params, x)


@jax.jit
def skip_step(params, x):
    h = dense(params[0], x)
    return residual(h, h, use_skip=False) + utils.numerics.safe_log(h * h)
