# source: https://github.com/jax-ml/jax/issues/5190
# observed on jax 0.10.2 CPU: the call raises ValueError: Non-hashable static arguments are not
#   supported, naming the dict `label_map` (static through static_argnums=1 although given by
#   keyword); the NumPy array `pairs`, static the same way, is unhashable too. In 2020 the
#   same call raised "vector::reserve".
#   `np` is NumPy, `Dict` from typing and `lil_matrix` from scipy.sparse (imports added).
#   The pandas pipeline of the report's `_get_pairwise_frequencies` (its `optimize` helper was
#   elided) is replaced by what it hands over: `pair.values`, an (n, 2) array of labels, and
#   the dict `label_map` from each label to its index.
# gap: static-hashability
from functools import partial
from typing import Dict

import numpy as np
from jax import jit
from scipy.sparse import lil_matrix


@partial(jit, static_argnums=(0, 1,))
def coocurrence_helper(pairs: np.array, label_map: Dict) -> lil_matrix:
    uniques = lil_matrix(np.zeros((len(label_map), len(label_map))).astype("int32"))
    for item in pairs:
        if item[0]!=item[1]:
            uniques[label_map[item[0]], label_map[item[1]]] += 1
    return uniques


def _get_pairwise_frequencies(pair_values):
    label_map = dict()
    for lbl, each in enumerate(np.unique(pair_values[:, 0])):
        label_map[each] = lbl
    freq = coocurrence_helper(pairs = pair_values, label_map=label_map)  # expect: JIT302
    return ((freq / freq.sum(1).ravel()).astype(np.float32))


if __name__ == "__main__":
    pair_values = np.array([["a", "a"], ["a", "b"], ["b", "a"], ["b", "c"], ["c", "b"]])
    _get_pairwise_frequencies(pair_values)
