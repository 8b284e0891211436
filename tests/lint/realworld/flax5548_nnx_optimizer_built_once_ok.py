# source: https://github.com/google/flax/issues/5548 (the reporter's workaround: "When I
#   stopped recreating the module/optimizer each epoch, recompilation disappeared")
# observed on jax 0.10.2 CPU: with flax 0.12.8 and optax 0.2.8, runs clean and
#   `train_one_epoch` compiles once: the discriminator and its optimizer are built once, before
#   the epoch loop, so every epoch hits the nnx.jit cache. The report gives the pattern with
#   `...` for the step's body and the module; added as stand-ins: the imports, a one-layer
#   `Discriminator`, a linear `gen` with its own optimizer, `metrics`, `rngs`, `n_epochs = 3`,
#   the learning rate and a one-step body for `train_one_epoch`.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Discriminator(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.linear = nnx.Linear(4, 1, rngs=rngs)

    def __call__(self, x):
        return self.linear(x)


rngs = nnx.Rngs(0)
gen = nnx.Linear(2, 4, rngs=rngs)
gen_opt = nnx.Optimizer(gen, optax.adam(1e-3), wrt=nnx.Param)
metrics = nnx.MultiMetric(loss=nnx.metrics.Average('loss'))
n_epochs = 3


@nnx.jit
def train_one_epoch(gen, dis, gen_opt, dis_opt, metrics, rngs):
    z = jax.random.normal(rngs.noise(), (8, 2))
    def loss_fn(dis):
        return jnp.mean(dis(gen(z)) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(dis)
    dis_opt.update(dis, grads)
    metrics.update(loss=loss)

dis = Discriminator(rngs=rngs)
dis_opt = nnx.Optimizer(
    dis,
    optax.adam(1e-3),
    wrt=nnx.Param,
)

for epoch in range(n_epochs):
    train_one_epoch(
        gen,
        dis,
        gen_opt,
        dis_opt,
        metrics,
        rngs,
    )


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    for epoch in range(n_epochs):
        train_one_epoch(gen, dis, gen_opt, dis_opt, metrics, rngs)
    assert compiles == [], compiles
