# source: https://github.com/SSAGESLabs/PySAGES/blob/71b1b7552e7f5e66a9ac4eafef15df15c006c57e/pysages/ml/utils.py (commit "Make ml compatible with jax's omistaging", PR https://github.com/SSAGESLabs/PySAGES/pull/90)
# observed on jax 0.10.2 CPU: runs clean; the separators are computed with the original numpy and kept as a list,
#   so `pack` works under jit (the fix of pysages90_pack_jnp_separators.py).
# gap: omnistaging
# added: renamed old APIs (`from jax import tree_flatten` -> `jax.tree_util.tree_flatten`,
#   `jaxlib.xla_extension.PyTreeDef` -> `jax.tree_util.PyTreeDef`, `params.split(separators)` ->
#   `np.split(params, separators)` since jax arrays no longer have a `split` method), a small stax-like parameter
#   list and the __main__ block (modelled on the project's tests/test_ml.py). Other functions of the module are left out.
from typing import NamedTuple

from jax import numpy as np, random, vmap
from jax.numpy.linalg import norm
from jax.tree_util import PyTreeDef, tree_flatten
from numpy import cumsum

import jax


class ParametersLayout(NamedTuple):
    """
    Holds the information needed to pack flatten parameters of a
    `jax.example_libraries.stax.serial` model.
    """
    structure:  PyTreeDef
    shapes:     list
    separators: list


def rng_key(seed=0, n=2):
    """
    Returns a pseudo-randomly generated key, constructed by calling
    `jax.random.PRNGKey(seed)` and then splitting it `n` times.
    """
    key = random.PRNGKey(seed)
    for _ in range(n):
        key, _ = random.split(key)
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
    data, structure = tree_flatten(params)
    ps = np.hstack([values.flatten() for values in data])
    shapes = [values.shape for values in data]
    separators = cumsum([prod(s) for s in shapes[:-1]])
    return ps, ParametersLayout(structure, shapes, list(separators))


def pack(params, layout):
    """
    Repacks the flatten parameters of a `jax.example_libraries.stax.serial` model
    previously flatten with `unpack`.
    """
    structure, shapes, separators = layout
    partition = np.split(params, separators)
    ps = [p.reshape(s) for (p, s) in zip(partition, shapes)]
    return structure.unflatten(ps)


if __name__ == "__main__":
    k1, k2 = random.split(rng_key(0))
    model_parameters = [(random.normal(k1, (1, 4)), np.zeros(4)), (),
                        (random.normal(k2, (4, 1)), np.zeros(1))]
    ps, layout = unpack(model_parameters)
    params = jax.jit(lambda ps: pack(ps, layout))(ps)
    assert all(bool((a == b).all()) for a, b in zip(jax.tree_util.tree_leaves(params),
                                                    jax.tree_util.tree_leaves(model_parameters)))
    print(jax.tree_util.tree_map(np.shape, params))
