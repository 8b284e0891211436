# source: https://github.com/yonesuke/jaxfss/blob/dfe3e247f505bbb751bfdb287ddd8a0e37fe2d02/src/jaxfss/train.py
#   (the module verbatim; the driver in __main__ is examples/nsa.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean. fit() jits its update body and hands it to
#   lax.fori_loop with a list carry [params, opt_state, losses, critical_vals]; the traced
#   loop index i writes the step's loss and params["fss"] through `.at[i].set`, the
#   results are rebound and returned, `len(init_params["fss"])` and `steps` are Python
#   values, and loss_fn/optimizer are closed over, not traced. The trained fss parameters
#   differ from their zero start and losses[k] equals the loss at step k.
#   Added: the example's rationalnets.RationalMLP is replaced by jaxfss's own MLP
#   (src/jaxfss/model.py), softclip.SoftClip by a two-line softplus/tanh stand-in,
#   jaxfss.CriticalData (needs distrax) and data/ising-square-B.dat by a small synthetic
#   scaling data set, and steps=10**4 by 200.
# gap: other
import jax.numpy as jnp
from jax import jit, value_and_grad
from jax.lax import fori_loop
import optax

def MSELoss(y_true, y_pred):
    return jnp.mean((y_true - y_pred) ** 2)

def NLLLoss(y_true, y_pred, var, eps=10**-6):
    v = jnp.maximum(var, eps)
    return 0.5 * jnp.mean(jnp.log(v) + (y_true - y_pred) ** 2 / v)

def fit(loss_fn, optimizer, init_params, steps):
    opt_state = optimizer.init(init_params)

    @jit
    def updata_fn(i, val):
        params, opt_state, losses, critical_vals = val
        loss, grad = value_and_grad(loss_fn)(params)
        updates, opt_state = optimizer.update(grad, opt_state, params)
        params = optax.apply_updates(params, updates)
        losses = losses.at[i].set(loss)
        critical_vals = critical_vals.at[i].set(params["fss"])
        return [params, opt_state, losses, critical_vals]

    losses = jnp.zeros(steps)
    n_critical = len(init_params["fss"])
    critical_vals = jnp.zeros((steps, n_critical))
    init_val = [init_params, opt_state, losses, critical_vals]

    params, opt_state, losses, critical_vals = fori_loop(0, steps, updata_fn, init_val)

    return params, losses, critical_vals


if __name__ == "__main__":
    import jax
    from typing import Sequence, Callable
    from flax import linen as nn

    # src/jaxfss/model.py
    class MLP(nn.Module):
        """
        Multi layer perceptron
        """
        features: Sequence[int]
        act: Callable = nn.sigmoid

        @nn.compact
        def __call__(self, x):
            for feature in self.features[:-1]:
                x = nn.Dense(feature)(x)
                x = self.act(x)
            x = nn.Dense(self.features[-1])(x)
            return x

    # stand-in for softclip.SoftClip
    class SoftClip:
        def __init__(self, low=None, high=None):
            self.low, self.high = low, high

        def forward(self, x):
            if self.high is None:
                return self.low + jax.nn.softplus(x)
            return self.low + (self.high - self.low) * (jnp.tanh(x) + 1.0) / 2.0

    # stand-in for CriticalData(...).train_data: A(T, L) = L^-c2 F((T - Tc) L^c1)
    Ls_raw = jnp.repeat(jnp.array([8.0, 16.0, 32.0]), 11)
    Ts_raw = jnp.tile(jnp.linspace(-1.0, 1.0, 11), 3)
    As_raw = Ls_raw ** -0.125 * jnp.tanh((Ts_raw - 0.1) * Ls_raw ** 1.0)
    train_data = {
        "system_size": (Ls_raw / Ls_raw.max()).reshape(-1, 1),
        "temperature": Ts_raw.reshape(-1, 1),
        "observable": As_raw.reshape(-1, 1),
    }

    # examples/nsa.py
    mlp = MLP(features=[20, 20, 1])
    mlp_params = mlp.init(jax.random.PRNGKey(0), jnp.array([[1]]))

    bij_c1 = SoftClip(low=0.0)
    bij_c2 = SoftClip(low=0.0)
    bij_Tc = SoftClip(low=-1.0, high=1.0)

    init_params = {
        "mlp": mlp_params,
        "fss": jnp.zeros(3)
    }

    def bijectors(params):
        p1, p2, pc = params["fss"]
        c1 = bij_c1.forward(p1)
        c2 = bij_c2.forward(p2)
        scaled_Tc = bij_Tc.forward(pc)
        return jnp.array([c1, c2, scaled_Tc])

    def loss_fn(params):
        c1, c2, scaled_Tc = bijectors(params)
        Ls, Ts, As = train_data["system_size"], train_data["temperature"], train_data["observable"]
        X = (Ts - scaled_Tc) * Ls ** c1
        Y = As * Ls ** c2
        return MSELoss(mlp.apply(params["mlp"], X), Y)

    lr = 10**-3
    optimizer = optax.adam(learning_rate=lr)
    steps = 200

    params, losses, fsses = fit(loss_fn, optimizer, init_params, steps)
    assert losses.shape == (steps,) and fsses.shape == (steps, 3)
    assert not jnp.allclose(params["fss"], 0.0)
    assert jnp.allclose(fsses[-1], params["fss"])
    assert jnp.allclose(losses[0], loss_fn(init_params), rtol=1e-5)
    assert bool(jnp.all(jnp.isfinite(losses)))
    print(bijectors(params), losses[0], losses[-1])
