# source: https://github.com/Michaelhess17/NeuralODE/blob/f8caa7be5022bb40d545652642bee9831652a9f8/scripts/generate_data_from_model.py
# observed on jax 0.10.2 CPU: silent misbehaviour: solve_sde is vmapped over trials to generate stochastic trajectories, but the Brownian path is built from the constant key jr.PRNGKey(0) inside the jitted function, so every trial (and every call) is driven by the same noise: trials started from the same seed data come out bit-identical
# gap: other
# observed: line 92 two trials with equal seeding data give bit-identical SDE outputs under jax.vmap(solve_sde) and on a second call; a VirtualBrownianTree built from a fresh key gives a different path
# added: imports; NeuralODE.__init__ and Func copied from DDFA_NODE/ddfa_node/networks/jax_utils.py at the same commit (other methods left out);
# the script's data loading (np.load of outputs/VDP_oscillators.npy, convolve_trials, takens embedding) and the model checkpoint
# (eqx.tree_deserialise_leaves of outputs/vdp_model.eqx) are replaced by random seeding data and a randomly initialised model of
# small size in the __main__ block; the GRU seeding loop is tolerated as JIT303 (125 unrolled steps in the original); the time-seeded key in diffusion (same noise scale for every trial and for a whole unit of time) is tolerated as JIT502.
import os
os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"

import jax.numpy as jnp
import jax.random as jr
import jax.nn as jnn
import diffrax
from diffrax import ODETerm, ControlTerm, MultiTerm, VirtualBrownianTree

import equinox as eqx
import jax
from jax import vmap


# --- from DDFA_NODE/ddfa_node/networks/jax_utils.py ---
class Func(eqx.Module):
    mlp: eqx.nn.MLP
    scale: float

    def __init__(self, data_size, width_size, depth, *, key, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.mlp = eqx.nn.MLP(
            in_size=data_size,
            out_size=data_size,
            width_size=width_size,
            depth=depth,
            activation=jnn.tanh,
            final_activation=lambda x: x,
            key=key,
        )

    def __call__(self, t, y, args):
        return self.mlp(y)


class NeuralODE(eqx.Module):
    cell: eqx.nn.GRUCell
    func: eqx.Module
    hidden_to_ode: eqx.nn.MLP
    ode_to_data: eqx.nn.MLP
    use_recurrence: bool
    linear: bool
    padding_layer: eqx.nn.MLP  # New layer for padding input

    def __init__(self, data_size, width_size, hidden_size, ode_size, depth, augment_dims, *, key, use_recurrence=True, linear=False, **kwargs):
        super().__init__(**kwargs)
        self.use_recurrence = use_recurrence
        self.linear = linear
        rec_key, func_key, dec_key = jr.split(key, 3)
        if use_recurrence:
            self.cell = eqx.nn.GRUCell(data_size, hidden_size, key=rec_key)
        else:
            ode_size = data_size + augment_dims
            self.cell = None
        self.padding_layer = None  # No padding layer if augment_dims is 0 (augment_dims=0 in the script)
        self.func = Func(ode_size, width_size, depth, key=func_key)
        if use_recurrence or augment_dims > 0:
            self.hidden_to_ode = eqx.nn.MLP(
                in_size=hidden_size,
                out_size=ode_size,
                width_size=width_size,
                depth=2,
                activation=jnn.tanh,
                key=dec_key,
            )
            self.ode_to_data = eqx.nn.MLP(  # tolerate: JIT502
                in_size=ode_size,
                out_size=data_size,
                width_size=width_size,
                depth=2,
                activation=lambda x: x,
                key=dec_key,
            )
        else:
            self.hidden_to_ode = None
            self.ode_to_data = None


# --- scripts/generate_data_from_model.py ---
@eqx.filter_jit
def solve_sde(model, new_ts, yi, diffusion):
    t0, t1 = new_ts[0], new_ts[-1]
    brownian_motion = VirtualBrownianTree(t0, t1, tol=1e-3, shape=(), key=jr.PRNGKey(0))  # expect: JIT502
    terms = MultiTerm(ODETerm(model.func), ControlTerm(diffusion, brownian_motion))
    if model.use_recurrence:
        hidden = jnp.zeros(model.cell.hidden_size)
        for yi_i in yi[::-1]:  # tolerate: JIT303
            hidden = model.cell(yi_i, hidden)
        y0 = model.hidden_to_ode(hidden)
    else:
        y0 = yi[0, :]
        # Pad the input if augment_dims > 0
        if model.padding_layer is not None:
            y0 = model.padding_layer(y0)

    solution = diffrax.diffeqsolve(
                terms,
                diffrax.Kvaerno5(),
                stepsize_controller=diffrax.PIDController(rtol=1e-4, atol=1e-6, error_order=1.5),
                t0=t0,
                t1=t1,
                dt0=(new_ts[1] - new_ts[0]),
                y0=y0,
                saveat=diffrax.SaveAt(ts=new_ts),
                max_steps=None,
            )
    ys = solution.ys
    if model.use_recurrence or model.padding_layer is not None:
        out = jax.vmap(model.ode_to_data)(ys)
    else:
        out = ys
    return out

@eqx.filter_jit
def diffusion(t, y, args):
    noise_std = 0.5
    return jr.normal(jr.PRNGKey(jnp.int32(t)), shape=y.shape) * noise_std  # tolerate: JIT502


if __name__ == "__main__":
    model = NeuralODE(data_size=5,
                        width_size=16,
                        hidden_size=16,
                        ode_size=6,
                        depth=2,
                        augment_dims=0,
                        key=jax.random.PRNGKey(42))
    new_ts = jnp.linspace(0, 5, 50)
    seeding_steps = 8
    seed = jr.normal(jr.PRNGKey(1), (seeding_steps, 5))
    # three trials: trials 0 and 1 share their seeding data, trial 2 differs
    data_tde = jnp.stack([seed, seed, seed + 1.0])
    out = jax.vmap(solve_sde, in_axes=(None, None, 0, None))(model, new_ts, data_tde, diffusion)
    out_again = jax.vmap(solve_sde, in_axes=(None, None, 0, None))(model, new_ts, data_tde, diffusion)
    same_trials = bool(jnp.array_equal(out[0], out[1]))
    same_calls = bool(jnp.array_equal(out, out_again))
    print("trials 0 and 1 identical:", same_trials, "| second call identical:", same_calls)
    assert same_trials and same_calls

    # the Brownian path itself: the constant key always gives the same increments,
    # a fresh key gives another path
    bm_fixed = VirtualBrownianTree(0.0, 5.0, tol=1e-3, shape=(), key=jr.PRNGKey(0))  # tolerate: JIT502
    bm_other = VirtualBrownianTree(0.0, 5.0, tol=1e-3, shape=(), key=jr.PRNGKey(7))
    assert float(bm_fixed.evaluate(0.0, 2.5)) != float(bm_other.evaluate(0.0, 2.5))
    print("fixed-key increment", float(bm_fixed.evaluate(0.0, 2.5)), "fresh-key increment", float(bm_other.evaluate(0.0, 2.5)))
