# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/docs/examples/neural_ode.ipynb
#   (the example's code cells; the final `ts, ys, model = main()` is replaced by the
#   __main__ block)
# observed on jax 0.10.2 CPU (diffrax 0.7.2, equinox 0.13.8, optax 0.2.8): two key reuses.
#   `dataloader` draws each epoch's permutation from `key` and then splits that same
#   consumed key for the next epoch: with a typed key under jax.debug_key_reuse(True) the
#   first `next()` raises KeyReuseError ("Previously-consumed key passed to random_split")
#   at the split. And `main` hands the same `loader_key` to a new dataloader in each stage
#   of its length strategy, so the second stage shuffles the series in exactly the order of
#   the first: the first batch of stage two holds the same series as the first batch of
#   stage one. Left out: `import matplotlib.pyplot as plt` (not installed; the __main__
#   block calls main with plot=False). The __main__ block runs main at a small size
#   (64 series, 3 steps per stage) with `dataloader` wrapped to record the first batch.
# gap: other
import time

import diffrax
import equinox as eqx  # https://github.com/patrick-kidger/equinox
import jax
import jax.nn as jnn
import jax.numpy as jnp
import jax.random as jr
import optax  # https://github.com/deepmind/optax


class Func(eqx.Module):
    out_scale: jax.Array
    mlp: eqx.nn.MLP

    def __init__(self, data_size, width_size, depth, *, key, **kwargs):
        super().__init__(**kwargs)
        self.out_scale = jnp.array(1.0)
        self.mlp = eqx.nn.MLP(
            in_size=data_size,
            out_size=data_size,
            width_size=width_size,
            depth=depth,
            activation=jnn.softplus,
            final_activation=jax.nn.tanh,
            key=key,
        )

    def __call__(self, t, y, args):
        # Best practice is often to use `learnt_scalar * tanh(MLP(...))` for the
        # vector field.
        return self.out_scale * self.mlp(y)


class NeuralODE(eqx.Module):
    func: Func

    def __init__(self, data_size, width_size, depth, *, key, **kwargs):
        super().__init__(**kwargs)
        self.func = Func(data_size, width_size, depth, key=key)

    def __call__(self, ts, y0):
        solution = diffrax.diffeqsolve(
            diffrax.ODETerm(self.func),
            diffrax.Tsit5(),
            t0=ts[0],
            t1=ts[-1],
            dt0=ts[1] - ts[0],
            y0=y0,
            stepsize_controller=diffrax.PIDController(rtol=1e-3, atol=1e-6),
            saveat=diffrax.SaveAt(ts=ts),
        )
        return solution.ys


def _get_data(ts, *, key):
    y0 = jr.uniform(key, (2,), minval=-0.6, maxval=1)

    def f(t, y, args):
        x = y / (1 + y)
        return jnp.stack([x[1], -x[0]], axis=-1)

    solver = diffrax.Tsit5()
    dt0 = 0.1
    saveat = diffrax.SaveAt(ts=ts)
    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(f), solver, ts[0], ts[-1], dt0, y0, saveat=saveat
    )
    ys = sol.ys
    return ys


def get_data(dataset_size, *, key):
    ts = jnp.linspace(0, 10, 100)
    key = jr.split(key, dataset_size)
    ys = jax.vmap(lambda key: _get_data(ts, key=key))(key)
    return ts, ys


def dataloader(arrays, batch_size, *, key):
    dataset_size = arrays[0].shape[0]
    assert all(array.shape[0] == dataset_size for array in arrays)
    indices = jnp.arange(dataset_size)
    while True:
        perm = jr.permutation(key, indices)
        (key,) = jr.split(key, 1)  # expect: JIT502
        start = 0
        end = batch_size
        while end < dataset_size:
            batch_perm = perm[start:end]
            yield tuple(array[batch_perm] for array in arrays)
            start = end
            end = start + batch_size


def main(
    dataset_size=256,
    batch_size=32,
    lr=3e-3,
    steps_strategy=(500, 500),
    length_strategy=(0.1, 1),
    width_size=64,
    depth=2,
    seed=5678,
    plot=True,
    print_every=100,
):
    key = jr.PRNGKey(seed)
    data_key, model_key, loader_key = jr.split(key, 3)

    ts, ys = get_data(dataset_size, key=data_key)
    _, length_size, data_size = ys.shape

    model = NeuralODE(data_size, width_size, depth, key=model_key)
    optim = optax.adabelief(lr)

    # Training loop like normal.
    #
    # Only thing to notice is that up until step 500 we train on only the first 10% of
    # each time series. This is a standard trick to avoid getting caught in a local
    # minimum.

    @eqx.filter_value_and_grad
    def grad_loss(model, ti, yi):
        y_pred = jax.vmap(model, in_axes=(None, 0))(ti, yi[:, 0])
        return jnp.mean((yi - y_pred) ** 2)

    @eqx.filter_jit
    def make_step(ti, yi, model, opt_state):
        loss, grads = grad_loss(model, ti, yi)
        updates, opt_state = optim.update(grads, opt_state)
        model = eqx.apply_updates(model, updates)
        return loss, model, opt_state

    for steps, length in zip(steps_strategy, length_strategy):
        opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))
        _ts = ts[: int(length_size * length)]
        _ys = ys[:, : int(length_size * length)]
        for step, (yi,) in zip(
            range(steps), dataloader((_ys,), batch_size, key=loader_key)  # expect: JIT502
        ):
            start = time.time()
            loss, model, opt_state = make_step(_ts, yi, model, opt_state)
            end = time.time()
            if (step % print_every) == 0 or step == steps - 1:
                print(f"Step: {step}, Loss: {loss}, Computation time: {end - start}")

    if plot:
        plt.plot(ts, ys[0, :, 0], c="dodgerblue", label="Real")
        plt.plot(ts, ys[0, :, 1], c="dodgerblue")
        model_y = model(ts, ys[0, 0])
        plt.plot(ts, model_y[:, 0], c="crimson", label="Model")
        plt.plot(ts, model_y[:, 1], c="crimson")
        plt.legend()
        plt.tight_layout()
        plt.savefig("neural_ode.png")
        plt.show()

    return ts, ys, model


if __name__ == "__main__":
    import sys
    import traceback

    original_dataloader = dataloader
    first_batches = []

    def dataloader(arrays, batch_size, *, key):
        it = original_dataloader(arrays, batch_size, key=key)
        batch = next(it)
        first_batches.append(batch[0][:, 0])
        yield batch
        yield from it

    main(dataset_size=64, batch_size=16, steps_strategy=(3, 3), width_size=8, plot=False)
    # observed: line 154 gives both stages the same loader_key: their first batches
    #   hold the same series (same initial points), in the same order
    assert len(first_batches) == 2
    assert (first_batches[0] == first_batches[1]).all()

    dataloader = original_dataloader
    error_line = None
    with jax.debug_key_reuse(True):
        try:
            next(dataloader((jnp.zeros((64, 2)),), 16, key=jr.key(5678)))
        except jax.errors.KeyReuseError:
            frames = [f for f in traceback.extract_tb(sys.exc_info()[2])
                      if f.filename == __file__]
            error_line = frames[-1].lineno
    # observed: line 100 splits the key the permutation above it already consumed
    #   (KeyReuseError)
    assert error_line == 100, error_line
