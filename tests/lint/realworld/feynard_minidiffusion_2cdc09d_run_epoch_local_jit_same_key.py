# source: https://github.com/feynard/mini-diffusion/blob/2cdc09d3d80bb0ab5cd8537bad6885e9156933b3/diffusion.py
# observed on jax 0.10.2 CPU: run_epoch defines `@jax.jit def update` afresh on every call, so every
#   epoch traces and compiles update again (3 epochs of identical batches: 3 compiles of update); and
#   every batch of an epoch is handed the same `key`, so every batch draws the same timesteps t and
#   the same noise e (t of batch 0 equals t of batch 1; JAX's key-reuse checker raises
#   KeyReuseError at the second update call). The next commit, 28f9a4500fc84e16c286533f2c4dee8ebd58f2ce
#   "Bug fixes for using `jax.jit`", moves update into __init__ (jitted once), but still hands the
#   same key to every batch.
# gap: per-call-recompile
# observed: line 105 the jitted update is compiled again on each of 3 run_epoch calls (3 compiles of update for identical batch shapes)
# observed: line 121 batches 0 and 1 of one epoch get identical timesteps t (and noise): update is called with the same key for every batch
# Kept: diffusion.py of the first commit as written (sample() keeps its `return` inside the step
#   loop). Changed: `from jax_primitives import MLP, Adam` replaced by small stand-ins (the package
#   is not installed): an Adam pytree following jax_primitives/optim.py and a tiny model TinyEps
#   called as model(x, t) like the repository's MLP. Added: the __main__ block (a 2-d spiral as in
#   the repository's example, 4 batches of 64, a subclass of TinyEps recording t with
#   jax.debug.callback, compile counts through jax.monitoring).
import jax
import jax.numpy as jnp
from functools import partial
import numpy as np


# --- stand-ins (added): jax_primitives is not installed; Adam follows jax_primitives/optim.py
#     (a pytree whose step() updates its moments and returns the new model), TinyEps replaces the
#     repository's MLP (mlp.py: called as model(x, t) on a batch and its timesteps)
@jax.tree_util.register_pytree_node_class
class Adam:
    def __init__(self, model, alpha=0.001, beta_1=0.9, beta_2=0.999, eps=1e-8):
        self.t = 0
        self.alpha = alpha
        self.m = jax.tree_util.tree_map(jnp.zeros_like, model)
        self.v = jax.tree_util.tree_map(jnp.zeros_like, model)
        self.beta_1, self.beta_2, self.eps = beta_1, beta_2, eps

    def tree_flatten(self):
        return (self.t, self.alpha, self.m, self.v), (self.beta_1, self.beta_2, self.eps)

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.t, obj.alpha, obj.m, obj.v = children
        obj.beta_1, obj.beta_2, obj.eps = aux
        return obj

    def step(self, model, grads):
        tm = jax.tree_util.tree_map
        self.t = self.t + 1
        self.m = tm(lambda m, g: self.beta_1 * m + (1 - self.beta_1) * g, self.m, grads)
        self.v = tm(lambda v, g: self.beta_2 * v + (1 - self.beta_2) * g ** 2, self.v, grads)
        b1t, b2t = 1 - self.beta_1 ** self.t, 1 - self.beta_2 ** self.t
        return tm(lambda p, m, v: p - self.alpha * (m / b1t) / ((v / b2t) ** 0.5 + self.eps),
                  model, self.m, self.v)


@jax.tree_util.register_pytree_node_class
class TinyEps:
    def __init__(self, params):
        self.params = params

    def tree_flatten(self):
        return (self.params,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    def __call__(self, x, t):
        h = jnp.concatenate([x, t.astype(x.dtype) / 100.0], -1)
        h = jnp.tanh(h @ self.params["w1"] + self.params["b1"])
        return h @ self.params["w2"] + self.params["b2"]


class DDPM:

    def __init__(
        self,
        model,
        data,
        steps,
        data_shape,
        batch_size=512,
        betas=(1e-4, 0.02)
    ):
        self.model = model
        self.data = data
        self.data_shape = data_shape

        self.steps = steps
        self.beta = jnp.linspace(betas[0], betas[1], steps)
        self.alpha = 1 - self.beta
        self.alpha_bar = jnp.cumprod(self.alpha, axis=0)
        
        self.epoch = 0
        self.batch_size = batch_size

        self.opt = Adam(self.model, alpha=1e-4)

    def run_epoch(self, key):
        loss_history = []

        def mse(model, x, t, e):
            return jnp.mean((model(x, t) - e) ** 2)
        
        @jax.jit  # expect: JIT301
        def update(opt, model, x, key):
            key_time, key_noise = jax.random.split(key, 2)

            t = jax.random.randint(key_time, [len(x)] + (len(x.shape) - 1) * [1], 0, self.steps)
            e = jax.random.normal(key_noise, x.shape)
            x_e = jnp.sqrt(self.alpha_bar[t]) * x + jnp.sqrt(1 - self.alpha_bar[t]) * e

            loss, grads = jax.value_and_grad(mse)(model, x_e, t, e)

            model = opt.step(model, grads)

            return opt, model, loss

        for i in range(0, len(self.data), self.batch_size):
            x = self.data[i: i + self.batch_size]
            self.opt, self.model, loss = update(self.opt, self.model, x, key)  # expect: JIT502
            loss_history.append(loss)

        return np.array(loss_history).mean().item()


    def sample(self, key, n: int = 64, return_all_steps: bool = False):
        keys = jax.random.split(key, self.steps)

        x = jax.random.normal(keys[0], [n] + self.data_shape)

        if return_all_steps:
            steps = []

        @jax.jit
        def sample_step(model, x, z, i):
            t = jnp.ones([n] + (len(x.shape) - 1) * [1], dtype=jnp.uint16) * i
                
            a = self.alpha[t]
            a_bar = self.alpha_bar[t]

            x = x - (1 - a) / jnp.sqrt(1 - a_bar) * model(x, t)
            x = x / jnp.sqrt(a) + jnp.sqrt(self.beta[t]) * z

            return x
        
        for i in reversed(range(self.steps)):
            if i > 0:
                z = jax.random.normal(keys[i], x.shape)
            else:
                z = jnp.zeros(x.shape)

            x = sample_step(self.model, x, z, i)

            if return_all_steps:
                steps.append(x)

            if return_all_steps:
                return steps
            else:
                return x

if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(kw.get("fun_name"))
        if name == "/jax/core/compile/backend_compile_duration" else None)

    seen_t = []

    @jax.tree_util.register_pytree_node_class
    class RecordingEps(TinyEps):
        def __call__(self, x, t):
            jax.debug.callback(lambda tt: seen_t.append(np.asarray(tt)), t)
            return super().__call__(x, t)

    rng = np.random.default_rng(0)
    r = np.linspace(2 * np.pi, 8 * np.pi, 256)
    data = np.stack((r * np.cos(r), r * np.sin(r)), 1).astype(np.float32) / (12 * np.pi)
    k = jax.random.split(jax.random.PRNGKey(0), 2)
    params = {"w1": 0.1 * jax.random.normal(k[0], (3, 32)), "b1": jnp.zeros(32),
              "w2": 0.1 * jax.random.normal(k[1], (32, 2)), "b2": jnp.zeros(2)}
    ddpm = DDPM(RecordingEps(params), data, 100, [2], batch_size=64)

    epoch_keys = jax.random.split(jax.random.PRNGKey(1), 3)
    losses = [ddpm.run_epoch(epoch_keys[j]) for j in range(3)]
    n_update = sum(1 for f in compiles if f and "update" in f)
    print("line 105: compiles of update over 3 epochs:", n_update)
    assert n_update == 3, compiles

    # 4 batches per epoch; value_and_grad runs the model once per batch
    assert len(seen_t) == 12, len(seen_t)
    print("line 121: t of batch 0 == t of batch 1:", np.array_equal(seen_t[0], seen_t[1]))
    assert all(np.array_equal(seen_t[0], seen_t[b]) for b in range(4))
    assert not np.array_equal(seen_t[0], seen_t[4])   # the next epoch's key differs
    assert len(np.unique(seen_t[0])) > 1
    x = ddpm.sample(jax.random.PRNGKey(2), n=8)
    print("losses", losses, "sample", x.shape)
