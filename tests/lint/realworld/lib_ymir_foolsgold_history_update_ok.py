# source: https://github.com/codymlewis/ymir/blob/a370888a2aeb26de6e8d99d30ea0e91bde6e9930/ymir/garrison/aggregators/foolsgold.py
#   (ymir, a JAX federated-learning framework: the FoolsGold aggregation server, which keeps
#   a history of each client's flattened gradients in a jitted update and weighs the clients
#   by the cosine similarity of their histories)
# observed on jax 0.10.2 CPU: runs clean: update iterates over the traced histories array and
#   the list of gradient pytrees (both of fixed length, unrolled at the trace) and compiles
#   once for a fixed number of clients; scale works on the concrete histories with NumPy
#   outside jit, and gives the two colluding clients (identical gradients) weight 0.
# gap: exemption-vs-JAX
# added: `import jax.flatten_util` (the module relied on an earlier import of it); the
#   AggServer base class from ymir/garrison/aggregators/server.py (its Network and jaxlib
#   annotations left out); a NumPy stand-in for sklearn.metrics.pairwise.cosine_similarity
#   (sklearn is not installed); the __main__ block, with four clients of which two send the
#   same gradient, as ymir's Network does each round.
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import jax
import jax.flatten_util
import jax.numpy as jnp
import optax


class smp:
    @staticmethod
    def cosine_similarity(X):
        X = np.asarray(X)  # sklearn converts its input with check_array
        Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
        return Xn @ Xn.T


class AggServer(ABC):
    @abstractmethod
    def __init__(self, params: optax.Params, network):
        pass

    @abstractmethod
    def update(self, all_grads: Iterable[optax.Params]):
        pass

    @abstractmethod
    def scale(self, all_grads: Iterable[optax.Params]):
        pass


"""
The FoolsGold algorithm proposed in https://arxiv.org/abs/1808.04866
"""

class Server(AggServer):
    def __init__(self, params, network, kappa=1.0):
        self.histories = jnp.zeros((len(network), jax.flatten_util.ravel_pytree(params)[0].shape[0]))
        self.kappa = kappa

    def update(self, all_grads):
        self.histories = update(self.histories, all_grads)

    def scale(self, all_grads):
        """Adapted from https://github.com/DistributedML/FoolsGold"""
        n_clients = self.histories.shape[0]
        cs = smp.cosine_similarity(self.histories) - np.eye(n_clients)
        maxcs = np.max(cs, axis=1)
        # pardoning
        for i in range(n_clients):
            for j in range(n_clients):
                if i == j:
                    continue
                if maxcs[i] < maxcs[j]:
                    cs[i][j] = cs[i][j] * maxcs[i] / maxcs[j]
        wv = 1 - (np.max(cs, axis=1))
        wv[wv > 1] = 1
        wv[wv < 0] = 0
        # Rescale so that max value is wv
        wv = wv / np.max(wv)
        wv[(wv == 1)] = .99
        # Logit function
        idx = wv != 0
        wv[idx] = self.kappa * (np.log(wv[idx] / (1 - wv[idx])) + 0.5)
        wv[(np.isinf(wv) + wv > 1)] = 1
        wv[(wv < 0)] = 0
        return wv

@jax.jit
def update(histories, all_grads):
    return jnp.array([h + jax.flatten_util.ravel_pytree(g)[0] for h, g in zip(histories, all_grads)])


if __name__ == "__main__":
    params = {"w": jnp.zeros((3, 2)), "b": jnp.zeros(2)}
    network = [object()] * 4
    server = Server(params, network)
    rng = np.random.default_rng(0)
    for _ in range(3):
        honest = [jax.tree_util.tree_map(lambda p: jnp.asarray(rng.normal(size=p.shape), jnp.float32), params) for _ in range(2)]
        sybil = jax.tree_util.tree_map(lambda p: jnp.ones(p.shape), params)
        all_grads = honest + [sybil, sybil]
        server.update(all_grads)
        wv = server.scale(all_grads)
    assert server.histories.shape == (4, 8)
    assert np.allclose(server.histories[2], 3.0)
    assert wv[2] == 0 and wv[3] == 0 and wv[0] > 0 and wv[1] > 0
    # one trace of update for four clients, over all rounds
    assert update._cache_size() == 1
