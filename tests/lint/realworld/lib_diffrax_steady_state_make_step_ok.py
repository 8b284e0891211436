# source: https://github.com/patrick-kidger/diffrax/blob/v0.7.2/docs/examples/steady_state.ipynb
#   (the example's code cells, as published)
# observed on jax 0.10.2 CPU (diffrax 0.7.2, equinox 0.13.8, optax 0.2.8): runs clean and
#   the learnt steady state approaches the 0.76 target. make_step is traced once by
#   eqx.filter_jit: the module's `steady_state` is an array leaf (annotated float, given
#   jnp.array), t1 = jnp.inf and max_steps=None are handled by diffrax's event-terminated
#   while loop, and the per-step print runs outside jit on the returned model. Added: the
#   `import jax` and the __main__ block, which counts traces of further steps.
# gap: exemption-vs-JAX
import diffrax
import jax
import equinox as eqx  # https://github.com/patrick-kidger/equinox
import jax.numpy as jnp
import optax  # https://github.com/deepmind/optax

class ExponentialDecayToSteadyState(eqx.Module):
    steady_state: float

    def __call__(self, t, y, args):
        return self.steady_state - y

def loss(model, target_steady_state):
    term = diffrax.ODETerm(model)
    solver = diffrax.Tsit5()
    t0 = 0
    t1 = jnp.inf
    dt0 = None
    y0 = 1.0
    max_steps = None
    controller = diffrax.PIDController(rtol=1e-3, atol=1e-6)
    cond_fn = diffrax.steady_state_event()
    event = diffrax.Event(cond_fn)
    adjoint = diffrax.ImplicitAdjoint()
    # This combination of event, t1, max_steps, adjoint is particularly
    # natural: we keep integration forever until we hit the event, with
    # no maximum time or number of steps. Backpropagation happens via
    # the implicit function theorem.
    sol = diffrax.diffeqsolve(
        term,
        solver,
        t0,
        t1,
        dt0,
        y0,
        max_steps=max_steps,
        stepsize_controller=controller,
        event=event,
        adjoint=adjoint,
    )
    (y1,) = sol.ys
    return (y1 - target_steady_state) ** 2

model = ExponentialDecayToSteadyState(
    jnp.array(0.0)
)  # initial steady state guess is 0.
# target steady state is 0.76
target_steady_state = jnp.array(0.76)
optim = optax.sgd(1e-2, momentum=0.7, nesterov=True)
opt_state = optim.init(model)


@eqx.filter_jit
def make_step(model, opt_state, target_steady_state):
    grads = eqx.filter_grad(loss)(model, target_steady_state)
    updates, opt_state = optim.update(grads, opt_state)
    model = eqx.apply_updates(model, updates)
    return model, opt_state


for step in range(100):
    model, opt_state = make_step(model, opt_state, target_steady_state)
    print(f"Step: {step} Steady State: {model.steady_state}")
print(f"Target: {target_steady_state}")


if __name__ == "__main__":
    events = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: events.append(name)
    )
    for step in range(3):
        model, opt_state = make_step(model, opt_state, target_steady_state)
    assert events.count("/jax/core/compile/jaxpr_trace_duration") == 0, events
    assert abs(float(model.steady_state) - 0.76) < 0.1, model.steady_state
