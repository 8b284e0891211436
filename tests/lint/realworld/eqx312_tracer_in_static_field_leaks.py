# source: https://github.com/patrick-kidger/equinox/issues/312 (the reporter's MWE)
# observed on jax 0.10.2 CPU: with equinox 0.13.8, `make_ensample` stores the vmapped
#   values `static[0]`, `static[1]`, `static[2]` (BatchTracers) in a field marked
#   `eqx.static_field()`: static fields are pytree metadata, not leaves, so the tracers
#   are not batched out but leak out of `filter_vmap` as they are (equinox warns "A JAX
#   array is being set as static!"). `ensample.static.a` is a tracer after the call, and
#   `evaluate_ensample` raises UnexpectedTracerError at the line that reads them. Imports
#   are added; the report's last call (`outputs = evaluate_ensample(ensample, 1)`) is made
#   in the `__main__` block, which catches its error.
# gap: stale-state-attributes
import sys
import traceback

import jax
import jax.numpy as jnp
import equinox as eqx


class StaticModule(eqx.Module):
    """Stores values that we want to treat as static always"""
    a: float
    b: float
    c: float

class Mod(eqx.Module):
    """
    Encapsulates a whole state where some parts are dynamic and others are static
    """
    arr: jax.Array
    static: StaticModule = eqx.static_field()

arrs = jnp.asarray([
    [1.0, 2.0, 3.0],
    [4.0, 5.0, 6.0],
])
statics = jnp.asarray([
    [1.0, 2.0, 3.0],
    [-1.0, -2.0, -3.0],
])

@eqx.filter_vmap(in_axes=(0, 0))
def make_ensample(arr, static):
    stat_mod = StaticModule(a=static[0], b=static[1], c=static[2])
    return Mod(arr=arr, static=stat_mod)  # expect: JIT202

ensample = make_ensample(arrs, statics)
print(ensample)
# >> Mod(arr=f32[2,3], static=StaticModule(a=f32[], b=f32[], c=f32[]))

@eqx.filter_vmap(in_axes=(0, None))
def evaluate_ensample(mod: Mod, c: int):
    adds = jnp.asarray([mod.static.a, mod.static.b, mod.static.c])
    new_arr = mod.arr + adds + c
    
    where = lambda _: _.arr    
    new_mod = eqx.tree_at(where, mod, new_arr)
    
    return new_mod


if __name__ == "__main__":
    # observed: line 44 puts vmap tracers into a static field: they escape make_ensample
    #   unbatched, and evaluate_ensample fails reading them (at its first line)
    assert isinstance(ensample.static.a, jax.core.Tracer)
    try:
        outputs = evaluate_ensample(ensample, 1)
    except jax.errors.UnexpectedTracerError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        assert frames[-1].lineno == 52, frames[-1]
    else:
        sys.exit("no UnexpectedTracerError")
