# source: https://github.com/patrick-kidger/lineax/blob/v0.1.1/docs/examples/operators.ipynb
#   (the example's code cells, as published; unchanged at the repository's HEAD)
# observed on jax 0.10.2 CPU (lineax 0.1.1): runs, but the tridiagonal operator's three
#   diagonals are all drawn from `key0`: `key1` is split off and never used, and the lower
#   and upper diagonals come out identical, both equal to the first four entries of the main
#   diagonal (JAX's partitionable threefry draws element i from the key and i alone). With a
#   typed key under jax.debug_key_reuse the second draw raises KeyReuseError. Added: the
#   __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jr
import lineax as lx
import numpy as np


np.set_printoptions(precision=3)

matrix = jnp.zeros((5, 5))
matrix = matrix.at[0, 4].set(3)  # top left corner
sparse_operator = lx.MatrixLinearOperator(matrix)

key0, key1, key = jr.split(jr.PRNGKey(0), 3)
diag = jr.normal(key0, (5,))
lower_diag = jr.normal(key0, (4,))  # expect: JIT502
upper_diag = jr.normal(key0, (4,))  # expect: JIT502
tridiag_operator = lx.TridiagonalLinearOperator(diag, lower_diag, upper_diag)

identity_operator = lx.IdentityLinearOperator(jax.ShapeDtypeStruct((5,), jnp.float32))

print((sparse_operator + tridiag_operator).as_matrix())

print((tridiag_operator - 100 * identity_operator).as_matrix())

print((tridiag_operator @ sparse_operator).as_matrix())

print(sparse_operator.transpose().as_matrix())  # or sparse_operator.T will work

from jaxtyping import Array, Float  # https://github.com/google/jaxtyping


def f(y: Float[Array, "3"], args) -> Float[Array, "3"]:
    y0, y1, y2 = y
    f0 = 5 * y0 + y1**2
    f1 = y1 - y2 + 5
    f2 = y0 / (1 + 5 * y2**2)
    return jnp.stack([f0, f1, f2])


def g(y: Float[Array, "3"]) -> Float[Array, "3"]:
    # Must be linear!
    y0, y1, y2 = y
    f0 = y0 - y2
    f1 = 0.0
    f2 = 5 * y1
    return jnp.stack([f0, f1, f2])


y = jnp.array([1.0, 2.0, 3.0])
in_structure = jax.eval_shape(lambda: y)
jac_operator = lx.JacobianLinearOperator(f, y, args=None)
fn_operator = lx.FunctionLinearOperator(g, in_structure)
identity_operator = lx.IdentityLinearOperator(in_structure)

operator = jac_operator @ fn_operator + 0.9 * identity_operator

import equinox as eqx  # https://github.com/patrick-kidger/equinox


truncate_leaf = lambda x: x in (jac_operator, fn_operator, identity_operator)
eqx.tree_pprint(operator, truncate_leaf=truncate_leaf)

operator.as_matrix()

operator_fully_materialised = lx.MatrixLinearOperator(operator.as_matrix())
eqx.tree_pprint(operator_fully_materialised, short_arrays=False)


if __name__ == "__main__":
    # observed: line 25 and line 26 draw from key0, which the main diagonal on the line
    #   above them already consumed: both equal the main diagonal's first four entries
    assert (lower_diag == upper_diag).all()
    assert (diag[:4] == lower_diag).all()
    reused = []
    with jax.debug_key_reuse(True):
        k0, _, _ = jr.split(jr.key(0), 3)
        jr.normal(k0, (5,))
        for n in (4, 4):
            try:
                jr.normal(k0, (n,))  # tolerate: JIT502
            except jax.errors.KeyReuseError:
                reused.append(n)
    assert reused == [4, 4], reused
