# source: https://github.com/dynamiqs/dynamiqs/blob/ddb79cbe7fa77c8edf11b6a3ee507d8a7a381447/dynamiqs/utils/states.py
#   (dq.fock as fixed by https://github.com/dynamiqs/dynamiqs/pull/808 "Fix JIT compatibility
#   with state creation": dim through np.asarray, the range check through eqx.error_if, and
#   _fock a closure over the NumPy dim)
# observed on jax 0.10.2 CPU: runs clean: the PR's MWE `jax.jit(lambda: dq.fock(2, 0))`
#   returns |0>, a traced Fock number selects the ket under jit and vmap, and the batched
#   multi-mode call of the docstring has shape (4, 6, 1); np.asarray keeps dim a concrete
#   NumPy array, so prod(dim) is a static size, and eqx.error_if checks the traced number at
#   run time. Kept verbatim: fock (docstring cut to its first line) and check_type_int from
#   dynamiqs/_checks.py. Added: the imports; cdtype as a stand-in for
#   dynamiqs._utils.cdtype (complex64 for the default float32); the __main__ block.
# gap: omnistaging
from math import prod

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
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
    dim = np.asarray(dim)
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
    number = eqx.error_if(
        number,
        dim - number <= 0,
        'Argument `number` must be in the range [0, dim[i]) for each mode i:'
        ' 0 <= number[..., i] < dim[i].',
    )

    # compute all kets
    def _fock(number: Array) -> Array:
        # return the tensor product of Fock states |n0> x |n1> x ... x |nf> where dim
        # has shape (ndim,), number has shape (ndim,) and number = [n0, n1,..., nf]
        # this is the unbatched version of fock()
        idx = 0
        for d, n in zip(dim, number):
            idx = d * idx + n
        ket = jnp.zeros((prod(dim), 1), dtype=cdtype())
        return ket.at[idx].set(1.0)

    _vectorized_fock = jnp.vectorize(_fock, signature='(ndim)->(prod_ndim,1)')
    return _vectorized_fock(number)


if __name__ == "__main__":
    @jax.jit
    def f():
        return fock(2, 0)

    assert jnp.allclose(f(), jnp.array([[1.0], [0.0]]))

    ket1 = jax.jit(lambda n: fock(3, n))(jnp.asarray(1))
    assert jnp.allclose(ket1[:, 0], jnp.array([0.0, 1.0, 0.0]))

    kets = jax.vmap(lambda n: fock(3, n))(jnp.arange(3))
    assert jnp.allclose(kets[..., 0], jnp.eye(3))

    number = [(0, 0), (0, 1), (1, 1), (2, 0)]
    assert jax.jit(lambda: fock((3, 2), number))().shape == (4, 6, 1)
