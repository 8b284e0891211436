# source: https://github.com/energnn/energnn/pull/75 (src/energnn/trainer/trainer.py after
#   commit 3a309ab "Perf/speedup trainer jit caching": `_update_params_fn` and the wrapper
#   `self._jit_update_params = nnx.jit(_update_params_fn)` built once in `Trainer.__init__`)
# observed on jax 0.10.2 CPU: with flax 0.12.8 and optax 0.2.8, the update is jitted once
#   and every training step reuses it: three steps compile the update once. Stand-ins: the
#   Trainer keeps only the cached wrapper and the update of `training_step`; the GNN is an
#   `nnx.Linear` and the gradient comes from `nnx.grad` of a squared output (the trainer's
#   VJP of the problem's gradient); imports added.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import optax
from flax import nnx

GNN = nnx.Module


def _update_params_fn(optimizer: nnx.Optimizer, model: GNN, gradient: nnx.State) -> None:
    """JIT-compatible function that applies the optimizer update."""
    optimizer.update(model, gradient)


class Trainer:
    def __init__(self, model, gradient_transformation):
        self.model = model
        self.optimizer = nnx.Optimizer(model, gradient_transformation, wrt=nnx.Param)
        self._jit_update_params = nnx.jit(_update_params_fn)

    def training_step(self, grads_params):
        self._jit_update_params(self.optimizer, self.model, grads_params)
        return {}


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, d, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None)

    model = nnx.Linear(4, 2, rngs=nnx.Rngs(0))
    trainer = Trainer(model=model, gradient_transformation=optax.sgd(1e-1))
    x = jnp.ones((3, 4))
    grad_fn = nnx.grad(lambda m: jnp.sum(m(x) ** 2))
    for step in range(3):
        trainer.training_step(grad_fn(model))
    n = sum(1 for name in compiles if name and "update_params" in name)
    assert n == 1, compiles
