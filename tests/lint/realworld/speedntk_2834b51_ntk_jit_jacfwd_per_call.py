# source: https://github.com/speed1313/ntk/blob/2834b519b46b43f73f7f83d5f707ac8dc55632c2/src/ntk/ntk_expermient.py
# observed on jax 0.10.2 CPU: NTK(model, params, x, y) defines a new jitted f and wraps
#   jax.jacfwd(f) in a new jax.jit on every call, twice, so every call (ntk_init and every
#   100th epoch, for each width) compiles both Jacobians again: 2 compilations of jit(f)
#   per call, 6 per width over the 3 calls here where 2 would do
# gap: per-call-recompile
# added: the compilation listener and the __main__ block that counts compilations per NTK
#   call; changed for CPU: widths [10, 100, 1000] -> [10, 20, 40] (jacfwd pushes a
#   parameters-by-parameters basis through the network: about 2M x 2M at width 1000, 20k x
#   20k at width 100; the author's next commit, e24589a "fix memory bug", drops the jax.jit
#   around the two jacfwd calls) and
#   --epoch default 1000 -> 101; trimmed: the images/ output folder and the matplotlib plots
#   after the training loop (their lists are still filled).
from flax import linen as nn
import jax.numpy as jnp
import jax
import jax.flatten_util

ntk_compiles = []  # added: compilations while NTK runs
_in_ntk = [False]
jax.monitoring.register_event_duration_secs_listener(
    lambda name, secs, **kw: ntk_compiles.append(kw.get("fun_name"))
    if name == "/jax/core/compile/backend_compile_duration" and _in_ntk[0] else None)


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


def NTK(model, params, x, y):
    @jax.jit  # tolerate: JIT301
    def f(params, x):
        return model.apply(params, x)

    J_x = jax.jit(jax.jacfwd(f, argnums=0))(params, x)  # expect: JIT301
    J_y = jax.jit(jax.jacfwd(f, argnums=0))(params, y)  # expect: JIT301
    grad_x = jax.flatten_util.ravel_pytree(J_x)[0]
    grad_y = jax.flatten_util.ravel_pytree(J_y)[0]
    ntk = grad_x @ grad_y.T
    return ntk


import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--width", type=int, default=1000)
parser.add_argument("--epoch", type=int, default=101)
args = parser.parse_args()


loss_dynamics_list = []

norm_list = []
loss_list = []
param_list = []
x_train = jnp.array([[-3], [0.5], [1], [3]])
y_train = jnp.array([2, -1.0 , 1.0, -2.0])
x = jnp.linspace(-5, 5, 100)
x = jnp.expand_dims(x, axis=-1)
y = []
ntk_list_per_width = []
ntk_calls = []  # added: (width, compilations during the call)

for width in [10, 20, 40]:
    params_norm_list = []
    loss_dynamics = []
    key = jax.random.PRNGKey(0)
    ntk_list = []
    model = MLP(width=width)
    params = model.init(key, x_train[0])
    init_params = params

    _in_ntk[0] = True; n0 = len(ntk_compiles)  # added
    ntk_init = NTK(model, params, x_train[0], x_train[1])
    _in_ntk[0] = False; ntk_calls.append((width, ntk_compiles[n0:].count("jit(f)")))  # added
    print("ntk_init: ", ntk_init)

    def loss_fn(params, x, y):
        y_pred = jax.vmap(model.apply, in_axes=(None, 0))(params, x)
        return jnp.mean((y_pred.reshape(-1) - y) ** 2)

    for i in range(args.epoch):
        grad_fn = jax.grad(loss_fn, argnums=0)
        grad = grad_fn(params, x_train, y_train)
        params = jax.tree_util.tree_map(lambda p, g: p - 0.001 * g, params, grad)
        if i % 5 == 0:
            print(loss_fn(params, x_train, y_train))
            loss_dynamics.append(loss_fn(params, x_train, y_train))
            params_norm = (
                jnp.linalg.norm(
                    jax.flatten_util.ravel_pytree(params)[0]
                    - jax.flatten_util.ravel_pytree(init_params)[0]
                )
            ) / jnp.linalg.norm(jax.flatten_util.ravel_pytree(init_params)[0])
            params_norm_list.append(params_norm)
        if i % 100 == 0:
            _in_ntk[0] = True; n0 = len(ntk_compiles)  # added
            ntk = NTK(model, params, x_train[0], x_train[1])
            _in_ntk[0] = False; ntk_calls.append((width, ntk_compiles[n0:].count("jit(f)")))  # added
            print("ntk: ", ntk)
            ntk_list.append(jnp.linalg.norm(ntk - ntk_init))

    loss_dynamics_list.append(loss_dynamics)
    norm_list.append(params_norm_list)
    loss_list.append(loss_dynamics)
    param_list.append(params)
    y.append(jax.vmap(model.apply, in_axes=(None, 0))(params, x))

    ntk_list_per_width.append(ntk_list)


if __name__ == "__main__":
    # Every NTK call, same width and same shapes, compiles its two Jacobians again.
    print("compilations of jit(f) per NTK call (width, n):", ntk_calls)
    assert len(ntk_calls) == 9, ntk_calls
    assert all(n == 2 for _, n in ntk_calls), ntk_calls
    for w in [10, 20, 40]:
        assert sum(n for ww, n in ntk_calls if ww == w) == 6
    assert all(jnp.isfinite(v) for v in ntk_list_per_width[-1])
# observed: line 51 jax.jit(jax.jacfwd(f)) of the jitted f defined anew in each call compiles jit(f) again on every NTK call (3 of 3 calls per width)
# observed: line 52 likewise for the second Jacobian (3 of 3 calls per width: 2 compilations per call, 6 per width)
