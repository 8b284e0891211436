# source: https://github.com/google/flax/issues/4695
# observed on jax 0.10.2 CPU: with flax 0.12.8 the first call of the jitted `update` raises
#   ValueError (Cannot extract graph node from different trace level) at `nnx.grad(loss_fn)
#   (self.model)`: the model and optimizer are closed over by `jax.jit`, not passed in, so
#   the nnx transform and the optimizer update inside the trace would write tracers into
#   objects that live outside it (the report saw the leaked tracer on an older flax when it
#   later read `nnx.state(model)`). The constructor's elided arguments, `self.model = model`,
#   the body of `loss_fn`, the model and the data are stand-ins; `nnx.Optimizer(model, tx)`
#   is spelled with flax 0.12's required `wrt=nnx.Param`, and `optimizer.update(grad)` with
#   its current signature `update(model, grads)`. Imports are added.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Algorithm:
    def __init__(self, model, lr):
        self.model = model
        self.tx = optax.adamw(lr)
        self.optimizer = nnx.Optimizer(model, self.tx, wrt=nnx.Param)

        @jax.jit
        def update(key, data):
            def loss_fn(model):
                x, y = data
                return jnp.mean((model(x) - y) ** 2)
            grad = nnx.grad(loss_fn)(self.model)  # expect: JIT202
            self.optimizer.update(self.model, grad)  # tolerate: JIT202

        self.update = update


if __name__ == "__main__":
    model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
    alg = Algorithm(model, 1e-2)
    data = (jnp.ones((4, 2)), jnp.zeros((4, 1)))
    alg.update(jax.random.key(0), data)
    print(nnx.state(model))
