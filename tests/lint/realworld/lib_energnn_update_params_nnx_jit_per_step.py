# source: https://github.com/energnn/energnn/blob/09b5da542e5cb7e2fca1127f05f677ff3950431d/src/energnn/trainer/trainer.py
#   (_update_params, called once per training step by Trainer.training_step; fixed in
#   3a309ab, "Perf/speedup trainer jit caching", which builds nnx.jit(_update_params_fn)
#   once in Trainer.__init__)
# observed on jax 0.10.2 CPU: with flax 0.12.8, every call of _update_params wraps a new
#   local `update_params` in nnx.jit, so each training step traces and compiles the
#   optimizer update again. Kept: _update_params as in the file (the GNN type hint is
#   dropped); the model (an nnx.Linear standing in for energnn's GNN), optimizer, gradient
#   and the step loop in __main__ are stand-ins.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import optax
from flax import nnx


def _update_params(optimizer: nnx.Optimizer, model, gradient: nnx.State, get_info: bool) -> dict:
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
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    model = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
    gradient = jax.tree.map(jnp.ones_like, nnx.state(model, nnx.Param))
    _update_params(optimizer=optimizer, model=model, gradient=gradient, get_info=False)
    before = len(compiles)
    for _ in range(3):
        _update_params(optimizer=optimizer, model=model, gradient=gradient, get_info=False)
    # observed: line 31 compiles the optimizer update again on each of the 3 later steps
    assert len(compiles) - before >= 3, (before, len(compiles))
