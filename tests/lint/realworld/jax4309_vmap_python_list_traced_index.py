# source: https://github.com/jax-ml/jax/issues/4309 (comment by AashinShazar, 2020-10-12)
# observed on jax 0.10.2 CPU: jax.errors.TracerIntegerConversionError (__index__ called on a batched traced int32[]) at the `j,i = newMap[n]` line: the Python list `newMap` is indexed with the vmapped index n
# gap: types
# added: imports, small inputs and the __main__ call; jax.ops.index_update(X, ops.index[r, :], v) renamed to X.at[r, :].set(v);
# rows 4-6 of Stacked are taken from the same user's next comment (the posted snippet is cut off after row 3);
# the tail of getFeature (return Stacked, the vmap over n that the comment describes) is a stand-in for the elided part
import jax.numpy as np
import numpy
from jax import vmap


def getFeature(featData, cc, x, wl, wi, dn, resMap, st, en, numwin):
    resMap = resMap.conj().T
    Fts = 6
    outSig = 161

    w = numwin - 1

    newMap = []

    for j in range(0, (len(resMap[:, 0]) - 1)):
        for i in range(0, (len(resMap[0]) - 1)):
            newMap.append([j,i])

    def innerLoop(n):
        Stacked = np.zeros((7, en - st))
        j,i = newMap[n] #n should be an integer  # expect: JIT401

        Stacked = Stacked.at[0, :].set(x[resMap[j, i], st:en])

        Stacked = Stacked.at[1, :].set(x[resMap[j, i + 1], st -1:en -1])
        Stacked = Stacked.at[2, :].set(x[resMap[j, i + 1], st:en])
        Stacked = Stacked.at[3, :].set(x[resMap[j, i + 1], st+1:en +1])

        Stacked = Stacked.at[4, :].set(x[resMap[j + 1, i], st -1:en -1])
        Stacked = Stacked.at[5, :].set(x[resMap[j + 1, i], st:en])
        Stacked = Stacked.at[6, :].set(x[resMap[j + 1, i], st+1:en+1])
        return Stacked

    return vmap(innerLoop)(np.arange(len(newMap)))


if __name__ == "__main__":
    x = np.asarray(numpy.random.rand(9, 40))
    resMap = np.arange(9).reshape(3, 3)
    featData = np.zeros((4, 7, 10))
    getFeature(featData, None, x, 10, 0, 0, resMap, 5, 15, 2)
