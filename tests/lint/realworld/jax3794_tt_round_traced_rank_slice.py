# source: https://github.com/jax-ml/jax/issues/3794
# observed on jax 0.10.2 CPU: IndexError "Slice entries must be static integers" at `u = u[:, :rc]` (line 64); rc = jnp.maximum(..., (s < delta).sum()) is traced under jit
# gap: omnistaging
# added: imports (the report does not show them; `np` and `la` are taken to be jax.numpy and jax.numpy.linalg,
#   since the report's error is at the slice), a small TT NamedTuple stand-in for the user's tensor-train object,
#   random cores as inputs, the __main__ block. The stored copy of the report ends at `s = s[:rc, :rc]`;
#   the rest of the loop body is elided and replaced by a return.
import time
from typing import NamedTuple

import jax
import jax.numpy as np
import jax.numpy as jnp
import jax.numpy.linalg as la


class TT(NamedTuple):
    core: list


def tt_round_model(tt, delta):  
    G = tt.core
    d = len(tt.core)
    rn = []
    time1 = time.perf_counter()    
    
    for k in range(d-1, 0, -1):
        r1, n, r2 = G[k].shape
        G[k] = np.reshape(G[k], (r1, n * r2))
        G[k] = np.transpose(G[k])
        G[k], R = la.qr(G[k])
        G[k] = np.transpose(G[k])
        G[k-1] = np.einsum('ijk,lk->ijl', G[k-1], R) 
    
    for k in range(0, d - 1):
        print(k, G[k].shape, k+1, G[k+1].shape)
        
        if k == 0:
            r1, n1, r2 = G[k].shape
            r3 = G[k+2].shape[0]
            n2 = int(G[k+1].shape[1] / r3)
        elif k == d - 2:
            r1 = G[k].shape[0]
            r2 = G[k+1].shape[0]
            n1 = int(G[k].shape[1] / r2)
            r3 = 1
            n2 = G[k+1].shape[1]
        else:
            r1 = G[k].shape[0]
            r2 = G[k+1].shape[0]
            n1 = int(G[k].shape[1] / r2)
            r3 = G[k+2].shape[0]
            n2 = int(G[k+1].shape[1] / r3)

        G[k] = np.reshape(G[k], (r1 * n1, r2))
        G[k+1] = np.reshape(G[k+1], (r2 , n2 * r3))
        u, s, v = la.svd(G[k])

        rc = s.shape[0]
        rc = jnp.maximum(rc, (s < delta).sum())
        
        s = np.diag(s)
        
        u = u[:, :rc]  # expect: JIT404
        s = s[:rc, :rc]  # tolerate: JIT404
        # (rest of the loop body not in the stored copy of the report)
    return G


if __name__ == "__main__":
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    cores = [jax.random.normal(keys[0], (1, 4, 3)),
             jax.random.normal(keys[1], (3, 4, 3)),
             jax.random.normal(keys[2], (3, 4, 1))]
    jax.jit(tt_round_model)(TT(cores), 1e-3)
