# source: https://github.com/patrick-kidger/equinox/issues/686
# observed on jax 0.10.2 CPU: with equinox 0.13.8, the second model built in __main__ makes
#   `step` trace again and assert_max_traces raises RuntimeError: each __init__ stores a new
#   `jax.jit(fk_fn)` wrapper in the module, a static field that compares unequal to the last
#   one, so every re-initialised model recompiles `step`. The thread shows the code up to
#   `if __name__ == "__main__":` and describes the rest (a first optimisation loop, then a
#   second after re-initialising the module); that loop, `fk` and the data are stand-ins.
# gap: per-call-recompile
import jax
import jax.numpy as jnp
import equinox as eqx
import optax
from typing import Callable
from jaxtyping import Array


class ForwardKinematicTrajectory(eqx.Module):
    trajectory: eqx.Module
    scale_mixer: Array
    forward: Callable

    def __init__(self, fk_fn: Callable):
        self.trajectory = eqx.nn.Linear(1, 3, key=jax.random.PRNGKey(0))
        self.scale_mixer = jnp.ones((3, 1))
        self.forward = jax.jit(fk_fn)  # expect: JIT301

    def __call__(self, data):
        """Meant to be vmapped"""
        return self.forward(self.trajectory(data) * self.scale_mixer)

def loss(model: ForwardKinematicTrajectory, X, y):
    return jnp.mean(jnp.square(jax.vmap(model)(X) - y))


@eqx.filter_jit
@eqx.debug.assert_max_traces(max_traces=1)
def step(model, opt_state, X, y, loss_grad, opt):
    val, grads = loss_grad(model, X, y)
    updates, opt_state = opt.update(grads, opt_state, model)
    model = eqx.apply_updates(model, updates)
    return val, model, opt_state


def fk(q):
    return jnp.sum(jnp.sin(q), axis=0)


if __name__ == "__main__":
    X = jnp.linspace(0, 1, 8)[:, None]
    y = jnp.zeros((8, 1))
    opt = optax.adam(1e-2)
    loss_grad = eqx.filter_value_and_grad(loss)
    retraced = None
    for trial in range(2):
        model = ForwardKinematicTrajectory(fk)
        opt_state = opt.init(eqx.filter(model, eqx.is_array))
        try:
            for i in range(3):
                val, model, opt_state = step(model, opt_state, X, y, loss_grad, opt)
        except RuntimeError as e:
            retraced = (trial, i, str(e))
    # observed: line 25 builds a new jit wrapper per model: the second model (trial 1, its
    #   first step) traces `step` again, which assert_max_traces reports
    assert retraced is not None and retraced[:2] == (1, 0), retraced
    assert "traced 2 times" in retraced[2]
