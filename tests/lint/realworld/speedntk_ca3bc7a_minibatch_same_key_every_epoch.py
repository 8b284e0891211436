# source: https://github.com/speed1313/ntk/blob/ca3bc7a4fe3a84e4c74451c26e68d88d0b9b2051/src/ntk/ntk_expermient.py
# observed on jax 0.10.2 CPU: in "minibatch" mode every epoch calls
#   split_into_batches_random(idxs, batch_size, key) with the same key (the helper splits
#   its own copy and its new key is never returned), so every epoch of every width draws
#   the same permutation: the mini-batches are identical in all epochs (fixed in the next
#   commit, cae09c0 "fix", which returns rng_key and rebinds key); the same key also made
#   the initial parameters (model.init(key, ...)), and JAX's key-reuse checker raises
#   KeyReuseError on the helper's split, reached from this call
# gap: other
# changed: --mode default "sgd" -> "minibatch" (the README's command runs --mode minibatch)
#   and --epoch default 1000 -> 20 for CPU; trimmed: the images/ output folder with its
#   config.csv and the matplotlib plots after the training loop (their lists are still
#   filled); added: the list that records each epoch's batches and the __main__ block.
from flax import linen as nn
import jax.numpy as jnp
import jax
import jax.flatten_util
import argparse


class MLP(nn.Module):
    width: int

    def setup(self):
        self.dense1 = nn.Dense(features=self.width)
        self.dense2 = nn.Dense(features=self.width)
        self.dense3 = nn.Dense(features=self.width)
        self.dense4 = nn.Dense(features=1)

    def __call__(self, x):
        x = self.dense1(x)
        x = jax.nn.relu(x)
        x = self.dense2(x)
        x = jax.nn.relu(x)
        x = self.dense3(x)
        x = jax.nn.relu(x)
        x = self.dense4(x)
        return x


"""
def NTK(model, params, x, y):
    def f(params, x):
        return model.apply(params, x)

    J_x = jax.jacrev(f, argnums=0)(params, x)
    # J_y = jax.jacfwd(f, argnums=0)(params, y)
    grad_x = jax.flatten_util.ravel_pytree(J_x)[0]
    # del J_x
    # grad_y = jax.flatten_util.ravel_pytree(J_y)[0]
    # del J_y
    ntk = grad_x @ grad_x.T
    # del grad_x, grad_y
    return ntk
"""


def split_into_batches_random(arr, batch_size, rng_key):
    rng_key, subkey = jax.random.split(rng_key)  # tolerate: JIT502
    shuffled_indices = jax.random.permutation(subkey, jnp.arange(arr.shape[0]))

    arr_shuffled = arr[shuffled_indices]
    num_batches = arr.shape[0] // batch_size
    batches = [
        arr_shuffled[i * batch_size : (i + 1) * batch_size] for i in range(num_batches)
    ]

    if num_batches * batch_size < arr.shape[0]:
        remaining_batch = arr_shuffled[num_batches * batch_size :]
        batches.append(remaining_batch)
    return batches


parser = argparse.ArgumentParser()
parser.add_argument("--width", type=int, default=1000)
parser.add_argument("--epoch", type=int, default=20)
parser.add_argument("--lr", type=float, default=0.001)
parser.add_argument("--mode", type=str, default="minibatch")
parser.add_argument("--batch_size", type=int, default=2)
args = parser.parse_args()

mode = args.mode
batch_size = args.batch_size

lr = args.lr


loss_dynamics_list = []

widths = [10, 100, 1000]
num_width = len(widths)

norm_list = []
loss_list = []
param_list = []
train_num = 10
x_train = jnp.linspace(-3, 3, train_num)
x_train = jnp.expand_dims(x_train, axis=-1)


def true_fn(x):
    # return (x ** 2) / 2 + x + 1
    return jnp.sin(x)


y_train = jax.vmap(true_fn)(x_train).reshape(-1)

x = jnp.linspace(-5, 5, 100)
x = jnp.expand_dims(x, axis=-1)
y = []
ntk_list_per_width = [] * num_width
epoch_batches = []  # added: (width, batches) per epoch

for width in widths:
    params_norm_list = []
    loss_dynamics = []
    key = jax.random.PRNGKey(0)
    ntk_list = []
    model = MLP(width=width)
    params = model.init(key, x_train[0])
    init_params = params

    @jax.jit
    def loss_fn(params, x, y):
        y_pred = jax.vmap(model.apply, in_axes=(None, 0))(params, x)
        return jnp.mean((y_pred.reshape(-1) - y) ** 2)

    # this function is defined to benefit from jit.
    # model's input shape is defined after mode.init
    @jax.jit
    def NTK(params, x, y):
        J_x_fn = jax.jacrev(model.apply, argnums=0)
        # J_y = jax.jacfwd(f, argnums=0)(params, y)
        J_x = J_x_fn(params, x)
        grad_x = jax.flatten_util.ravel_pytree(J_x)[0]
        # del J_x
        # grad_y = jax.flatten_util.ravel_pytree(J_y)[0]
        # del J_y
        ntk = grad_x @ grad_x.T
        # del grad_x, grad_y
        return ntk

    ntk_init = NTK(params, x_train[0], x_train[1])
    print("ntk_init: ", ntk_init)
    for i in range(args.epoch):
        if mode == "full":
            loss, grad = jax.value_and_grad(loss_fn, argnums=0)(
                params, x_train, y_train
            )
            params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grad)
        elif mode == "sgd":
            key, subkey = jax.random.split(key)
            random_order = jax.random.permutation(subkey, jnp.arange(len(x_train)))
            for idx in random_order:
                batch_x = x_train[idx : idx + 1]
                batch_y = y_train[idx : idx + 1]
                loss, grad = jax.value_and_grad(loss_fn, argnums=0)(
                    params, batch_x, batch_y
                )
                params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grad)
        elif mode == "minibatch":
            idxs = jnp.arange(len(x_train))
            batches = split_into_batches_random(idxs, batch_size, key)  # expect: JIT502
            epoch_batches.append((width, [b.tolist() for b in batches]))  # added

            for batch in batches:
                batch_x = x_train[batch]
                batch_y = y_train[batch]
                loss, grad = jax.value_and_grad(loss_fn, argnums=0)(
                    params, batch_x, batch_y
                )
                params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grad)
        else:
            raise ValueError("mode must be 'full', 'sgd' or 'minibatch'")

        if i % 5 == 0:
            loss = loss_fn(params, x_train, y_train)
            print(loss)
            loss_dynamics.append(loss)
            params_norm = (
                jnp.linalg.norm(
                    jax.flatten_util.ravel_pytree(params)[0]
                    - jax.flatten_util.ravel_pytree(init_params)[0]
                )
            ) / jnp.linalg.norm(jax.flatten_util.ravel_pytree(init_params)[0])
            params_norm_list.append(params_norm)
        if i % 5 == 0:
            ntk = NTK(params, x_train[0], x_train[1])
            ntk_list.append(jnp.linalg.norm(ntk - ntk_init) / jnp.linalg.norm(ntk_init))

    loss_dynamics_list.append(loss_dynamics)
    norm_list.append(params_norm_list)
    loss_list.append(loss_dynamics)
    param_list.append(params)
    y.append(jax.vmap(model.apply, in_axes=(None, 0))(params, x))

    ntk_list_per_width.append(ntk_list)


if __name__ == "__main__":
    # every epoch, at every width, shuffles the training points the same way
    for w in widths:
        orders = [bs for ww, bs in epoch_batches if ww == w]
        assert len(orders) == args.epoch
        assert all(o == orders[0] for o in orders), w
    print("batches of every epoch:", epoch_batches[0][1])
    # with the key advanced (what cae09c0 does) the epochs differ
    k = jax.random.PRNGKey(0)
    fresh = []
    for _ in range(3):
        k, sub = jax.random.split(k)
        fresh.append(jax.random.permutation(sub, jnp.arange(len(x_train))).tolist())
    assert fresh[0] != fresh[1] or fresh[1] != fresh[2]
# observed: line 163 split_into_batches_random gets the same key every epoch: all 20 epochs of each width use the same mini-batches ([0, 3], [9, 5], [1, 8], [4, 6], [2, 7] at every width)
