# source: https://github.com/KaiSugahara/HERec/blob/7f226475b48a83f12b792fdd4ae5a52d9ea6f8f9/herec/model/HE_MF.py
#   (with the HE module from herec/model/HE.py at the same commit: hierarchical
#   embeddings for matrix factorisation, a flax recommender-systems research code base)
# observed on jax 0.10.2 CPU: runs clean under jax.jit(model.apply): HE.setup runs inside
#   the trace and builds its tuple of connection matrices in a Python loop over the static
#   hierarchy depth (`len(self.clusterNums)`), each parameter initialiser closing over the
#   loop's row and column counts while self.param calls it at once; getEmbedByLevel
#   recurses on the Python int level, and the user and item ids index the traced
#   connection matrix as arrays. Four batches of one shape trace the jitted apply once, the
#   jitted get_all_scores_by_user_ids (method=) once, and both match the eager results.
#   Added: the imports of both files in one module, and the __main__ block (random
#   interactions of 30 users and 40 items, two-level hierarchies).
# gap: exemption-vs-JAX
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import linen as nn


class HE(nn.Module):

    objNum: int
    clusterNums: Sequence[int]
    embedDim: int
    temperature: float

    def setup( self ):

        # Hierarchy Depth
        self.depth = len(self.clusterNums)

        # Root-node Embeddings
        self.rootMatrix = self.param(f'rootMatrix', lambda rng: jax.random.normal(rng, (self.clusterNums[-1], self.embedDim), jnp.float32))

        # Connection Matrices
        self.connectionMatrix = (None,)
        for level in range(1, self.depth+1):
            row_num = self.clusterNums[level-2] if level > 1 else self.objNum
            col_num = self.clusterNums[level-1]
            self.connectionMatrix += (self.param(f'connectionMatrix_{level}', lambda rng: jax.random.normal(rng, (row_num, col_num), jnp.float32)),)

    def getEmbed( self, ids: list ):

        """
            func:
                Extract embeddings of given objects (leaf nodes)
            args:
                ids: list[int]
                    Target IDs from which to extract the embedding
            returns:
                embedMatrix: jnp.ndarray
                    Embedding matrix with rows corresponding to target object embeddings
        """

        return nn.softmax(self.connectionMatrix[1][ids] / self.temperature) @ self.getEmbedByLevel(1)

    def getEmbedByLevel( self, level: int ):

        """
            func:
                Extract embeddings of nodes at given level
            args:
                level: int
                    Target node level in the hierarchy
            returns:
                embedMatrix: jnp.ndarray
                    Embedding matrix with rows corresponding to target node embeddings
        """

        if (self.depth == level):
            return self.rootMatrix

        else:
            return nn.softmax(self.connectionMatrix[level+1] / self.temperature) @ self.getEmbedByLevel(level+1)


class HE_MF(nn.Module):
    
    user_num: int
    item_num: int
    userClusterNums: list
    itemClusterNums: list
    embedDim: int
    temperature: float
    
    def setup(self):

        self.userEmbedder = HE(
            objNum = self.user_num,
            clusterNums = self.userClusterNums,
            embedDim = self.embedDim,
            temperature = self.temperature,
        )

        self.itemEmbedder = HE(
            objNum = self.item_num,
            clusterNums = self.itemClusterNums,
            embedDim = self.embedDim,
            temperature = self.temperature,
        )
    
    @nn.compact
    def __call__(self, X):
        
        user_ids = X[:, 0]
        item_ids = X[:, 1]

        U = self.userEmbedder.getEmbed(user_ids)
        V = self.itemEmbedder.getEmbed(item_ids)
        
        return jnp.sum(U * V, axis=1, keepdims=True)
    
    def get_all_scores_by_user_ids(self, user_ids):

        U = self.userEmbedder.getEmbed(user_ids)
        V = self.itemEmbedder.getEmbedByLevel(level=0)

        return U @ V.T


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    user_num, item_num = 30, 40
    model = HE_MF(user_num=user_num, item_num=item_num, userClusterNums=[8, 3],
                  itemClusterNums=[10, 4], embedDim=6, temperature=0.5)
    batches = [jnp.asarray(np.stack([rng.integers(0, user_num, 16),
                                     rng.integers(0, item_num, 16)], axis=1))
               for _ in range(4)]
    variables = model.init(jax.random.key(0), batches[0])

    traces = []

    def apply(variables, X):
        traces.append("apply")
        return model.apply(variables, X)

    jitted_apply = jax.jit(apply)
    for X in batches:
        out = jitted_apply(variables, X)
        assert out.shape == (16, 1)
        assert jnp.allclose(out, model.apply(variables, X), atol=1e-5)
    assert traces == ["apply"], traces

    def all_scores(variables, user_ids):
        traces.append("scores")
        return model.apply(variables, user_ids, method=HE_MF.get_all_scores_by_user_ids)

    jitted_scores = jax.jit(all_scores)
    for X in batches:
        scores = jitted_scores(variables, X[:, 0])
        assert scores.shape == (16, item_num)
        eager = model.apply(variables, X[:, 0], method=HE_MF.get_all_scores_by_user_ids)
        assert jnp.allclose(scores, eager, atol=1e-5)
    assert traces == ["apply", "scores"], traces
    print("OK: one trace each for apply and get_all_scores_by_user_ids")
