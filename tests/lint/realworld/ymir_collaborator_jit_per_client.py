# source: https://github.com/codymlewis/ymir/blob/5c2c029ebf55f5e9fa1286caccdb84f49175c45f/ymir/scout/collaborator.py
#   (ymir, a JAX federated-learning framework: the client class before commit bbacc0c
#   "fixed collaborator update recompilation issue", with the Controller of
#   ymir/mp/network.py that runs each selected client's local update every round)
# observed on jax 0.10.2 CPU: every Collaborator built (one per client, in the experiment's
#   loop) calls update(opt, loss), which jits a new local _apply: with four clients sharing
#   one optimizer and loss, the identical local step compiles four times, once per client,
#   instead of once (the comment in __init__ notes the slow first round).
# gap: per-call-recompile
# added: the Controller from ymir/mp/network.py (its add_switch/add_grad_processor left
#   out), a stand-in for the ymirlib helpers tree_add and chain, a stand-in for the client
#   data iterator, a softmax-regression loss, and the __main__ block, which builds four
#   clients in a loop as research/viceroy/labelflip.py does and runs three rounds.
import jax

class Collaborator:
    def __init__(self, opt, opt_state, loss, data, epochs):
        self.opt_state = opt_state
        self.data = data
        self.batch_size = data.batch_size
        self.epochs = epochs
        self.opt = opt
        self.loss = loss
        # having the following for each client makes it a bit slower (but substantially faster overall) for the first round due to jit
        self.update = update(opt, loss)


def update(opt, loss):
    """Do some local training and return the gradient"""
    @jax.jit  # expect: JIT301
    def _apply(params, opt_state, X, y):
        grads = jax.grad(loss)(params, X, y)
        updates, opt_state = opt.update(grads, opt_state, params)
        return grads, opt_state, updates
    return _apply


import numpy as  np
import optax


class ymirlib:
    """Stand-in for the two ymirlib helpers the controller uses."""
    @staticmethod
    def tree_add(*trees):
        return jax.tree_util.tree_map(lambda *xs: sum(xs), *trees)

    @staticmethod
    def chain(funclist, x):
        for f in funclist:
            x = f(x)
        return x


"""
Set-up a network architecture for the FL process
"""


class Controller:
    """
    Holds a collection of clients and connects to other Controllers
    Handles the update step of each of the clients and passes the respective gradients
    up the chain.
    """
    def __init__(self, C):
        self.clients = []
        self.switches = []
        self.C = C
        self.K = 0
        self.grad_chain = []

    def __len__(self):
        return len(self.clients) + sum([len(s) for s in self.switches])

    def add_client(self, client):
        """Connect a client directly to this controller"""
        self.clients.append(client)
        self.K += 1

    def __call__(self, params, rng=np.random.default_rng()):
        """Update each connected client and return the generated gradients. Recursively call in connected controllers"""
        all_grads = []
        for switch in self.switches:
            all_grads.extend(switch(params))
        idx = rng.choice(self.K, size=int(self.C * self.K), replace=False)
        for i in idx:
            p = params
            sum_grads = None
            for _ in range(self.clients[i].epochs):
                grads, self.clients[i].opt_state, updates = self.clients[i].update(p, self.clients[i].opt_state, *next(self.clients[i].data))
                p = optax.apply_updates(p, updates)
                sum_grads = grads if sum_grads is None else ymirlib.tree_add(sum_grads, grads)
            all_grads.append(sum_grads)
        return ymirlib.chain(self.grad_chain, all_grads)


class DataIter:
    """Stand-in for ymir's client data iterator: next() gives a batch (X, y)."""
    def __init__(self, X, y, batch_size, seed):
        self.X, self.y, self.batch_size = X, y, batch_size
        self.rng = np.random.default_rng(seed)

    def __next__(self):
        idx = self.rng.choice(len(self.y), self.batch_size, replace=False)
        return self.X[idx], self.y[idx]


def loss(params, X, y):
    logits = X @ params["w"] + params["b"]
    return -jax.numpy.mean(jax.nn.log_softmax(logits)[jax.numpy.arange(len(y)), y])


if __name__ == "__main__":
    import jax.numpy as jnp

    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, fun_name=None, **kw: compiled.append(fun_name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5)).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.int32)
    params = {"w": jnp.zeros((5, 2)), "b": jnp.zeros(2)}
    opt = optax.sgd(0.01)
    opt_state = opt.init(params)

    controller = Controller(1.0)
    for i in range(4):
        controller.add_client(Collaborator(opt, opt_state, loss, DataIter(X[i::4], y[i::4], 8, i), 1))
    for round in range(3):
        all_grads = controller(params)
        params = jax.tree_util.tree_map(lambda p, *g: p - 0.1 * sum(g) / len(g), params, *all_grads)

    # observed: line 30 jits a new _apply for each of the four clients: four compilations
    assert compiled.count("jit(_apply)") == 4, compiled.count("jit(_apply)")
