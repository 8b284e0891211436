# source: https://github.com/dynamiqs/dynamiqs/blob/51622084e0c4c356fccc2985e8a7cb3487dc058c/dynamiqs/utils/states.py
#   (dq.fock before https://github.com/dynamiqs/dynamiqs/pull/808 "Fix JIT compatibility with
#   state creation", whose MWE is `@jax.jit def f(): return dq.fock(2, 0)`)
# observed on jax 0.10.2 CPU: eagerly dq.fock(2, 0) is |0>; under jit, jnp.asarray(dim) of
#   the Python int 2 is a tracer, so the range check `if jnp.any(dim - number <= 0)` raises
#   TracerBoolConversionError. Past that check, _fock builds its ket with
#   jnp.zeros((prod(dim), 1)), and prod of the traced dim is no static size: called under jit
#   with the dims jnp.asarray makes, it raises TypeError there (the PR's "error related to
#   dynamic dim input"). Kept verbatim: fock (docstring cut to its first line), _fock, and
#   check_type_int from dynamiqs/_checks.py. Added: the imports; cdtype as a stand-in for
#   dynamiqs._utils.cdtype (complex64 for the default float32); the __main__ block.
# gap: omnistaging
import sys
import traceback
from math import prod

import jax
import jax.numpy as jnp
from jax import Array
from jax.typing import ArrayLike


def cdtype():
    # stand-in for dynamiqs._utils.cdtype with the default float32 dtype
    return jnp.complex64


def check_type_int(x: Array, argname: str):
    if not jnp.issubdtype(x.dtype, jnp.integer):
        raise ValueError(
            f'Argument {argname} must be of type integer, but is of type'
            f' {argname}.dtype={x.dtype}.'
        )


def fock(dim: int | tuple[int, ...], number: ArrayLike) -> Array:
    r"""Returns the ket of a Fock state or a tensor product of Fock states."""
    dim = jnp.asarray(dim)
    number = jnp.asarray(number)
    check_type_int(dim, 'dim')
    check_type_int(number, 'number')

    # check if dim is a single value or a tuple
    if dim.ndim > 1:
        raise ValueError('Argument `dim` must be an integer or a tuple of integers.')

    # if dim is an integer, convert shapes dim: () -> (1,) and number: (...) -> (..., 1)
    if dim.ndim == 0:
        dim = dim[None]
        number = number[..., None]

    # check if number has shape (..., len(ndim))
    if number.shape[-1] != dim.shape[-1]:
        raise ValueError(
            'Argument `number` must have shape `(...)` or `(..., len(dim))`, but'
            f' has shape number.shape={number.shape}.'
        )

    # check if 0 <= number[..., i] < dim[i] for all i
    if jnp.any(dim - number <= 0):  # expect: JIT101
        raise ValueError(
            'Argument `number` must be in the range [0, dim[i]) for each mode i:'
            ' 0 <= number[..., i] < dim[i].'
        )

    # compute all kets
    _vectorized_fock = jnp.vectorize(_fock, signature='(ndim),(ndim)->(prod_ndim,1)')
    return _vectorized_fock(dim, number)


def _fock(dim: Array, number: Array) -> Array:
    # return the tensor product of Fock states |n0> x |n1> x ... x |nf> where dim has
    # shape (ndim,), number has shape (ndim,) and number = [n0, n1,..., nf]
    # this is the unbatched version of fock()
    idx = 0
    for d, n in zip(dim, number):
        idx = d * idx + n
    ket = jnp.zeros((prod(dim), 1), dtype=cdtype())  # expect: JIT404
    return ket.at[idx].set(1.0)

def _raising_line(fn, *args):
    try:
        fn(*args)
    except (jax.errors.TracerBoolConversionError, TypeError):
        frames = [f for f in traceback.extract_tb(sys.exc_info()[2]) if f.filename == __file__]
        return frames[-1].lineno
    return None


if __name__ == "__main__":
    assert jnp.allclose(fock(2, 0), jnp.array([[1.0], [0.0]]))  # eager: fine

    @jax.jit
    def f():
        return fock(2, 0)

    # observed: line 60 raises TracerBoolConversionError on the traced dim
    assert _raising_line(f) == 60

    # the dims fock hands _fock are what jnp.asarray made of the Python int
    # observed: line 78 raises TypeError, prod of the traced dim is no static shape
    assert _raising_line(jax.jit(lambda: _fock(jnp.asarray(2)[None], jnp.asarray(0)[None]))) == 78
