# source: https://github.com/Axect/JAX_tutorial/blob/c8e82d38ed385d94abdda1922b9b87b6869ef1cc/07_structure/util.py (with model.py and main.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; the author's fix of the earlier Trainer (commit 144492c read self.model inside the eqx.filter_jit method, so the jitted step never saw the updated model) passes the model through the jitted step, and the loss decreases
# gap: stale-state-attributes
# added: wandb.log replaced by a list of logged dicts; the HyperbolicLR scheduler (hyperbolic_lr.py) replaced by a stand-in class with the same gen_scheduler() method returning an optax schedule; MLP and loss_fn copied from model.py and main.py; small dataset/epochs in __main__; save/load and argparse/survey omitted
import jax
import jax.numpy as jnp
import equinox as eqx
import optax

import numpy as np

LOGGED = []


class wandb:  # stand-in
    @staticmethod
    def log(d):
        LOGGED.append(d)


class MLP(eqx.Module):
    layers: list

    def __init__(self, hparams, key):
        width = hparams["width"]
        depth = hparams["depth"]

        in_size = 1
        out_size = 1

        layers = []
        keys = jax.random.split(key, depth)
        for i in range(depth-1):
            layers.append(eqx.nn.Linear(in_size, width, key=keys[i]))
            in_size = width
        layers.append(eqx.nn.Linear(in_size, out_size, key=keys[-1]))
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers[:-1]:
            x = jax.nn.gelu(layer(x))
        return self.layers[-1](x)


def dataloader(x, y, batch_size):
    indices = np.arange(x.shape[0])
    while True:
        perm = np.random.permutation(indices)
        for start in range(0, len(perm), batch_size):
            idx = perm[start:start + batch_size]
            yield x[idx], y[idx]


def create_data(dataset_size, key):
    x = jnp.linspace(0, 2 * jnp.pi, dataset_size)
    x = x.reshape((dataset_size, 1))
    epsilon = jax.random.normal(key, x.shape) * 0.01
    y = jnp.sin(x) + epsilon
    return x, y


class Trainer:
    def __init__(self, model, optimizer, scheduler, loss_fn):
        self.model = model
        self.scheduler = scheduler.gen_scheduler()
        self.optim = optimizer(learning_rate=self.scheduler)
        self.loss_fn = loss_fn

    @eqx.filter_jit
    def train_epoch(self, model, x, y, opt_state):
        loss, grads = self.loss_fn(model, x, y)
        updates, opt_state = self.optim.update(grads, opt_state, params=model)
        model = eqx.apply_updates(model, updates)
        return loss, model, opt_state

    def train(self, epochs, dl_train, dl_val):
        model = self.model
        opt_state = self.optim.init(model)

        for epoch, (x, y), (val_x, val_y) in zip(range(epochs), dl_train, dl_val):
            loss, model, opt_state = self.train_epoch(model, x, y, opt_state)
            val_loss, _ = self.loss_fn(model, val_x, val_y)
            wandb.log({"train_loss": loss, "val_loss": val_loss, "lr": self.scheduler(epoch)})

        return model


@eqx.filter_value_and_grad
def loss_fn(model, x, y):
    pred_y = jax.vmap(model)(x)
    return jnp.mean((pred_y - y) ** 2)


class ConstantLR:  # stand-in for HyperbolicLR
    def __init__(self, init_lr):
        self.init_lr = init_lr

    def gen_scheduler(self):
        return optax.constant_schedule(self.init_lr)


if __name__ == "__main__":
    np.random.seed(42)
    train_key, val_key, model_key = jax.random.split(jax.random.PRNGKey(42), 3)
    x_train, y_train = create_data(512, train_key)
    x_val, y_val = create_data(512, val_key)
    dl_train = dataloader(x_train, y_train, 128)
    dl_val = dataloader(x_val, y_val, 128)

    model = MLP({"width": 16, "depth": 3}, model_key)
    trainer = Trainer(model=model, optimizer=optax.adamw, scheduler=ConstantLR(0.01), loss_fn=loss_fn)
    trained = trainer.train(200, dl_train, dl_val)

    first, last = float(LOGGED[0]["val_loss"]), float(LOGGED[-1]["val_loss"])
    assert last < 0.5 * first, (first, last)
    print("val loss", first, "->", last)
