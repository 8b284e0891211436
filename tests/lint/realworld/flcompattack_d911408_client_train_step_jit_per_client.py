# source: https://github.com/codymlewis/FL_Compression_Attack_Eval/blob/d91140804206d900a7c3ed5683dd11f845d96897/fl/client/client.py
#   (a federated-learning attack/compression evaluation in JAX: the client class, with
#   main.py's ce_loss and its client set-up loop, fl/utils/network.py's Network,
#   fl/server/server.py and fl/server/fedavg.py, fl/utils/functions.py and models.py's
#   LeNet, all at the same commit)
# observed on jax 0.10.2 CPU: every Client built in main's loop (one per client) calls
#   train_step(opt, loss), which jits a new local _apply: with four honest clients sharing
#   one optimizer and one model, the identical local step compiles four times in the first
#   round, once per client, instead of once. main also hands each client a fresh jitted
#   ce_loss (line 156, tolerated): it is never compiled on its own, only traced inside each
#   client's _apply, and is part of the same per-client recompilation (a shared step that
#   took the loss as a static argument would still compile once per client).
# gap: per-call-recompile
# added: the __main__ block (four clients, two rounds, a FedAvg server), a stand-in for the
#   data iterator (random MNIST-shaped batches in place of the Hugging Face dataset), and
#   the modules inlined into one file. Changed: models.py's einops.rearrange(x, "b w h c ->
#   b (w h c)") is written x.reshape(x.shape[0], -1) (einops is not installed); the server
#   keeps its optax.sgd(1) default but its rng default is left out; fedzip/ae transforms,
#   the attacks and the evaluation metrics are left out.
import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
import optax
import flax.linen as nn


# fl/utils/functions.py
@jax.jit
def ravel(params):
    return jax.flatten_util.ravel_pytree(params)[0]


@jax.jit
def gradient(start_params, end_params):
    return ravel(start_params) - ravel(end_params)


@jax.jit
def scale_sum(all_params, scale):
    weighted_params = jnp.einsum('C,Cw -> Cw', scale, all_params)
    return jnp.einsum('Cw -> w', weighted_params)


# fl/client/client.py
class Client:

    def __init__(self, params, opt, loss, data, epochs=1):
        self._train_step = train_step(opt, loss)
        self.opt_state = opt.init(params)
        self.data = data
        self.epochs = epochs
        self.params = params

    def step(self, params, return_weights=False):
        self.params = params
        for e in range(self.epochs):
            X, y = next(self.data)
            self.params, self.opt_state, loss = self._train_step(self.params, self.opt_state, X, y)
        return ravel(
            self.params
        ) if return_weights else gradient(params, self.params), loss, self.data.batch_size


def train_step(opt, loss):

    @jax.jit  # expect: JIT301
    def _apply(params, opt_state, X, y):
        loss_val, grads = jax.value_and_grad(loss)(params, X, y)
        updates, opt_state = opt.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss_val

    return _apply


# fl/utils/network.py
class Network:
    """Higher level class for tracking each controller and client"""

    def __init__(self, C=1.0):
        self.clients = []
        self.C = C
        self.K = 0
        self.update_transforms = []

    def __len__(self):
        return self.K

    def add_client(self, client):
        self.clients.append(client)
        self.K += 1

    def __call__(self, params, rng=np.random.default_rng(), return_weights=False):
        idx = rng.choice(self.K, size=int(self.C * self.K), replace=False) if self.C < 1 else range(self.K)
        updates, losses, data = zip(*[self.clients[i].step(params, return_weights=return_weights) for i in idx])
        for transform in self.update_transforms:
            updates = transform(updates)
        return jnp.array(updates), jnp.array(losses), data


# fl/server/server.py and fl/server/fedavg.py
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

    def step(self):
        all_params, all_loss, all_data = self.network(self.params)
        batch_sizes = jnp.array(all_data)
        self.update(scale_sum(all_params, batch_sizes / batch_sizes.sum()))
        return jnp.mean(all_loss)


def updater(opt):

    @jax.jit
    def _apply(params, grads, opt_state):
        updates, opt_state = opt.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state

    return _apply


# models.py
class LeNet(nn.Module):
    classes: int

    @nn.compact
    def __call__(self, x, act=False):
        x = nn.Sequential(
            [
                lambda x: x.reshape(x.shape[0], -1),
                nn.Dense(300), nn.relu,
                nn.Dense(100), nn.relu,
            ]
        )(x)
        if act:
            return x
        return nn.softmax(nn.Dense(self.classes)(x))


# main.py
def ce_loss(model):

    @jax.jit  # tolerate: JIT301
    def _loss(params, X, y):
        logits = jnp.clip(model.apply(params, X), 1e-15, 1 - 1e-15)
        one_hot = jax.nn.one_hot(y, logits.shape[-1])
        return -jnp.mean(jnp.einsum("bl,bl -> b", one_hot, jnp.log(logits)))

    return _loss


class DataIter:
    """Stand-in for fl.utils.datasets.DataIter over random MNIST-shaped data."""

    def __init__(self, batch_size, seed):
        rng = np.random.default_rng(seed)
        self.X = rng.random((256, 28, 28, 1), dtype=np.float32)
        self.Y = rng.integers(0, 10, 256)
        self.batch_size = batch_size
        self.rng = rng

    def __next__(self):
        idx = self.rng.choice(len(self.Y), self.batch_size, replace=False)
        return self.X[idx], self.Y[idx]


if __name__ == "__main__":
    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, fun_name=None, **kw: compiled.append(fun_name)
        if name == "/jax/core/compile/backend_compile_duration" else None
    )

    num_honest = 4
    local_epochs = 2
    net = LeNet(10)
    client_opt = optax.sgd(0.1)
    data = [DataIter(32, i) for i in range(num_honest)]
    params = net.init(jax.random.PRNGKey(42), next(DataIter(32, 99))[0])
    loss_fn = ce_loss
    network = Network()
    for i in range(num_honest):
        network.add_client(Client(params, client_opt, loss_fn(net.clone()), data[i], local_epochs))
    server = Server(network, params)

    compiled.clear()
    network(server.params)
    # observed: line 67 jits a new _apply for each of the four clients: four compilations
    #   of the same local step in one round
    assert compiled.count("jit(_apply)") == num_honest, compiled
    assert len({id(c._train_step) for c in network.clients}) == num_honest

    for r in range(2):
        loss = server.step()
    assert bool(jnp.isfinite(loss))
