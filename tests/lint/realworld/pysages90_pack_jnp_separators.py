# source: https://github.com/SSAGESLabs/PySAGES/blob/71b1b7552e7f5e66a9ac4eafef15df15c006c57e/pysages/ml/utils.py (the version before this commit, "Make ml compatible with jax's omistaging", PR https://github.com/SSAGESLabs/PySAGES/pull/90)
# observed on jax 0.10.2 CPU: ConcretizationTypeError "... in jax.numpy.split argument 1" at the split in `pack` (line 69)
#   when pack runs under jit, as in the project's test `jit(lambda ps: pack(ps, layout))(params)`: the separators were
#   computed with jax.numpy (`np.cumsum(np.array(...))`), and reading them inside the trace stages them out.
# gap: omnistaging
# added: renamed old APIs (`jax.tree_flatten` -> `jax.tree_util.tree_flatten`, `jaxlib.xla_extension.PyTreeDef`
#   -> `jax.tree_util.PyTreeDef`, `params.split(separators)` -> `np.split(params, separators)` since jax arrays no
#   longer have a `split` method), `JaxArray` stand-in for pysages.utils.JaxArray, a small stax-like parameter list
#   and the __main__ block (modelled on the project's tests/test_ml.py). Other functions of the module are left out.
from typing import NamedTuple

from jax import numpy as np
from jax.numpy.linalg import norm

import jax

JaxArray = jax.Array
PyTreeDef = jax.tree_util.PyTreeDef


class ParametersLayout(NamedTuple):
    """
    Holds the information needed to pack flatten parameters of a
    `jax.example_libraries.stax.serial` model.
    """
    structure:  PyTreeDef
    shapes:     list
    separators: JaxArray


def rng_key(seed=0, n=2):
    """
    Returns a pseudo-randomly generated key, constructed by calling
    `jax.random.PRNGKey(seed)` and then splitting it `n` times.
    """
    key = jax.random.PRNGKey(seed)
    for _ in range(n):
        key, _ = jax.random.split(key)
    return key


def prod(xs):
    y = 1
    for x in xs:
        y *= x
    return y


# %% Models
def unpack(params):
    """
    Returns the parameters of a `jax.example_libraries.stax.serial` model stacked
    into a flat vector. This representation is more convenient for computing
    the jacobian of the errors of the model.
    """
    data, structure = jax.tree_util.tree_flatten(params)
    ps = np.hstack([values.flatten() for values in data])
    shapes = [values.shape for values in data]
    separators = np.cumsum(np.array([prod(s) for s in shapes[:-1]]))
    return ps, ParametersLayout(structure, shapes, separators)


def pack(params, layout):
    """
    Repacks the flatten parameters of a `jax.example_libraries.stax.serial` model
    previously flatten with `unpack`.
    """
    structure, shapes, separators = layout
    partition = np.split(params, separators)  # expect: JIT404
    ps = [p.reshape(s) for (p, s) in zip(partition, shapes)]
    return structure.unflatten(ps)


if __name__ == "__main__":
    k1, k2 = jax.random.split(rng_key(0))
    model_parameters = [(jax.random.normal(k1, (1, 4)), np.zeros(4)), (),
                        (jax.random.normal(k2, (4, 1)), np.zeros(1))]
    ps, layout = unpack(model_parameters)
    params = jax.jit(lambda ps: pack(ps, layout))(ps)
    print(jax.tree_util.tree_map(np.shape, params))
