# source: https://github.com/energnn/energnn/pull/75 (src/energnn/trainer/trainer.py before
#   commit 3a309ab "Perf/speedup trainer jit caching": `_update_params`, called by
#   `Trainer.training_step` once per step)
# observed on jax 0.10.2 CPU: with flax 0.12.8 and optax 0.2.8, every call of
#   `_update_params` defines a new local `update_params` and hands it to `nnx.jit`, so each
#   training step traces and compiles the optimizer update again (three steps, three
#   compilations of the update); the PR builds `nnx.jit(_update_params_fn)` once in
#   `Trainer.__init__` ("Previously they were rebuilt inside each step, which forced
#   JAX/NNX to retrace and recompile repeatedly"). Stand-ins: the GNN is an `nnx.Linear`
#   and the gradient comes from `nnx.grad` of a squared output (the trainer's VJP of the
#   problem's gradient); the `__main__` loop stands for `training_step`; imports added.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import optax
from flax import nnx

GNN = nnx.Module


def _update_params(optimizer: nnx.Optimizer, model: GNN, gradient: nnx.State, get_info: bool) -> dict:
    r"""
    Updates the model weights using the gradient.

    :param optimizer: Optimizer instance.
    :param model: Core Graph Neural Network model.
    :param gradient: Gradient for model parameters.
    :param get_info: If True, return diagnostic info on grads and updates.
    :returns: Dictionary of diagnostic information.
    """

    def update_params(optimizer, model, gradient):
        optimizer.update(model, gradient)

    nnx.jit(update_params)(optimizer, model, gradient)  # expect: JIT301

    if get_info:
        infos = {
            # "grads/l2_norm": optax.tree_utils.tree_l2_norm(grads),
        }
    else:
        infos = {}

    return infos


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, d, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None)

    model = nnx.Linear(4, 2, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.sgd(1e-1), wrt=nnx.Param)
    x = jnp.ones((3, 4))
    grad_fn = nnx.grad(lambda m: jnp.sum(m(x) ** 2))
    counts = []
    for step in range(3):
        grads = grad_fn(model)
        before = len(compiles)
        _update_params(optimizer=optimizer, model=model, gradient=grads, get_info=False)
        counts.append(sum(1 for n in compiles[before:] if n and "update_params" in n))
    # observed: line 35 jits a fresh local function per call: each of the three steps
    #   compiles the update again
    assert counts == [1, 1, 1], (counts, compiles)
