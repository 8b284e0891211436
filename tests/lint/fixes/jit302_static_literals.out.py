from functools import partial

import jax


@partial(jax.jit, static_argnames=("dims", "axes", "names"))
def f(x, dims, axes, names):
    return x.transpose(dims).sum(axes)


def run(x, cfg):
    a = f(x, dims=(1, 0), axes=(0,), names=frozenset({"a", "b"}))
    b = f(
        x,
        dims=(
            1,  # rows
            0,  # columns
        ),
        axes=(),
        names=((1, 2), -3),
    )
    c = f(x, dims=[[1], [0]], axes=cfg, names={"k": 1})  # no fix: nested list, dict
    return a, b, c
