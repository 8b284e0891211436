# source: https://github.com/codymlewis/FL_Compression_Attack_Eval/blob/d91140804206d900a7c3ed5683dd11f845d96897/fl/server/trmean.py
#   (robust federated aggregation servers of a federated-learning evaluation in JAX: the
#   trimmed-mean server, with fl/server/phocas.py and the server base class of
#   fl/server/server.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean under jit: the number of updates to trim, beta, is
#   a Python int computed once in the constructor (round(beta * len(network))) and passed
#   as a static argument, so the slices [beta:n_clients - beta] and [:n_clients - beta] have
#   static bounds (n_clients is a static shape); over three rounds each aggregator compiles
#   once, and the trimmed mean matches NumPy's.
# gap: exemption-vs-JAX
# added: a stand-in for einops.reduce with the one pattern the servers use ('C w -> w', a
#   reduction over the client axis; einops is not installed), a stand-in network that
#   returns five clients' flattened parameters, losses and batch sizes, and the __main__
#   block; the server's rng default (np.random.default_rng()) and abstract step are left
#   out, and the two modules' classes, both named Server, are named TrMeanServer and
#   PhocasServer here.
from functools import partial

import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
import optax


class einops:
    """Stand-in for einops.reduce over the client axis."""
    @staticmethod
    def reduce(x, pattern, reduction):
        assert pattern == 'C w -> w'
        return reduction(x, axis=0)


# fl/server/server.py
class Server:

    def __init__(self, network, params, opt=optax.sgd(1)):
        self.network = network
        self.params = params
        ravelled_params, unravel_fn = jax.flatten_util.ravel_pytree(params)
        self.params_len = len(ravelled_params)
        self.unraveller = jax.jit(unravel_fn)
        self.opt = opt
        self.opt_state = self.opt.init(params)
        self.updater = updater(opt)

    def update(self, grads):
        self.params, self.opt_state = self.updater(self.params, self.unraveller(grads), self.opt_state)


def updater(opt):

    @jax.jit
    def _apply(params, grads, opt_state):
        updates, opt_state = opt.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state

    return _apply


# fl/server/trmean.py
class TrMeanServer(Server):

    def __init__(self, network, params, beta=0.1, **kwargs):
        super().__init__(network, params, **kwargs)
        self.beta = round(beta * len(network))

    def step(self):
        all_params, all_loss, _ = self.network(self.params)
        self.update(trmean(all_params, self.beta))
        return jnp.mean(all_loss)


@partial(jax.jit, static_argnums=(1, ))
def trmean(all_params, beta):
    n_clients = all_params.shape[0]
    return einops.reduce(jnp.sort(all_params, axis=0)[beta:n_clients - beta], 'C w -> w', jnp.mean)


# fl/server/phocas.py
class PhocasServer(Server):

    def __init__(self, network, params, beta=0.1, **kwargs):
        """
        Construct the FoolsGold server.
        Optional arguments:
        - beta: the beta parameter for the trimmed mean algorithm, states the half of the percentage of the client's updates to be removed
        """
        super().__init__(network, params, **kwargs)
        self.beta = round(beta * len(network))

    def step(self):
        all_params, all_loss, _ = self.network(self.params)
        self.update(phocas(all_params, self.beta))
        return jnp.mean(all_loss)


@partial(jax.jit, static_argnums=(1, ))
def phocas(Ws, beta):
    n_clients = Ws.shape[0]
    trmean = einops.reduce(jnp.sort(Ws, axis=0)[beta:n_clients - beta], 'C w -> w', jnp.mean)
    return einops.reduce(
        jnp.take_along_axis(Ws, jnp.argsort(abs(Ws - trmean), axis=0), axis=0)[:n_clients - beta], 'C w -> w', jnp.mean
    )


class StandInNetwork:
    """Five clients whose updates are the global parameters plus noise (one outlier)."""

    def __init__(self, nclients=5, seed=0):
        self.K = nclients
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return self.K

    def __call__(self, params):
        flat = np.asarray(jax.flatten_util.ravel_pytree(params)[0])
        updates = flat + self.rng.normal(scale=0.1, size=(self.K, flat.size)).astype(np.float32)
        updates[0] += 100.0
        return jnp.array(updates), jnp.array(self.rng.random(self.K)), [32] * self.K


if __name__ == "__main__":
    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, fun_name=None, **kw: compiled.append(fun_name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
    network = StandInNetwork(5)
    tr_server = TrMeanServer(network, params, beta=0.2)
    ph_server = PhocasServer(network, params, beta=0.2)
    assert tr_server.beta == 1
    for r in range(3):
        tr_server.step()
        ph_server.step()
    assert compiled.count("jit(trmean)") == 1, compiled
    assert compiled.count("jit(phocas)") == 1, compiled

    X = np.random.default_rng(1).normal(size=(5, 7)).astype(np.float32)
    assert np.allclose(trmean(jnp.array(X), 1), np.sort(X, axis=0)[1:4].mean(axis=0), atol=1e-6)
    # the outlier client (+100) is trimmed away
    assert bool(jnp.all(jnp.abs(jax.flatten_util.ravel_pytree(tr_server.params)[0]) < 10))
    assert bool(jnp.all(jnp.abs(jax.flatten_util.ravel_pytree(ph_server.params)[0]) < 10))
