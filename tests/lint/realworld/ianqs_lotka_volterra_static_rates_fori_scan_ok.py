# source: https://github.com/IanQS/numpy_to_jax/blob/f2d92f94048b5d3c17c8089441819d0a8ade7f1d/case_studies/lotka-volterra/jax_lotka-volterra.ipynb
# observed on jax 0.10.2 CPU: the predator-prey case study runs as written: the step is
#   jitted with the five rate constants static (hashable Python floats, bound once through
#   functools.partial), so the Python driver loop compiles it once; the fori_loop and scan
#   versions redefine _lotka_volterra_step and reach the same state after 20 steps (prey
#   10 -> 0.764, predators 5 -> 4.822); the fori_loop trajectory version writes each row
#   with `.at[i + 1].set` and keeps the result.
# gap: flow-sensitive
# added: the cells joined in order (markdown cells left out, output printing kept); the
#   __main__ block that counts compilations of the driver loop and compares the three results.
import numpy as np
import jax.numpy as jnp
import jax
from functools import partial


"""
Notes:
    1) We added in partial function to pass the static_argnames to the jit 
    2) we added in static_argnames to specify that these are constant and should not result in a recompilation
"""
@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
    x, y,
    alpha, beta, gamma, delta, dt
):
    
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y
    
    x_new = x + dxdt * dt
    y_new = y + dydt * dt
    
    return x_new, y_new


# Parameters
alpha = 1.1
beta = 0.4
gamma = 0.4
delta = 0.1
dt = 0.1
num_steps = 20


lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0


xs = []
ys = []
for i in range(num_steps):
    x_new, y_new = lotka_volterra_step(
        x_prev, y_prev
    )

    xs.append(x_new)
    ys.append(y_new)

    x_prev = x_new
    y_prev = y_new


for (x, y) in zip(xs, ys):
    print(f"x: {x:.3f}, y: {y:.3f}")


@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
    _, state,
    alpha, beta, gamma, delta, dt
):
    x, y = state 
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y
    
    x_new = x + dxdt * dt
    y_new = y + dydt * dt
    
    return x_new, y_new


lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0

# If we're only concerned with having the last value, we can do the following
x, y = jax.lax.fori_loop(
    lower=0, upper=num_steps,
    body_fun=lotka_volterra_step, init_val=((x_prev, y_prev))
)
print(f"x: {x:.3f}, y: {y:.3f}")


@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
        trajectory_idx, state,
        alpha, beta, gamma, delta, dt
):
    x, y = state[trajectory_idx]
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y

    x_new = x + dxdt * dt
    y_new = y + dydt * dt
    
    state = state.at[trajectory_idx + 1].set([x_new, y_new])
    return state


lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0

trajectory = jnp.zeros((num_steps+1, 2))
trajectory = trajectory.at[0].set([x_prev, y_prev])


# If we're only concerned with having the last value, we can do the following
trajectory = jax.lax.fori_loop(
    lower=0, upper=num_steps,
    body_fun=lotka_volterra_step, init_val=(trajectory)
)

for i in range(len(np.asarray(trajectory))):
    x = trajectory[i, 0]
    y = trajectory[i, 1]
    print(f"x: {x:.3f}, y: {y:.3f}")


@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
        state, _,
        alpha, beta, gamma, delta, dt
):
    x, y = state
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y

    x_new = x + dxdt * dt
    y_new = y + dydt * dt

    return (x_new, y_new), (x_new, y_new)


lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0

final_state, trajectory = jax.lax.scan(
    f=lotka_volterra_step,
    init=(x_prev, y_prev),
    xs=None,
    length=num_steps
)


print(np.asarray(final_state))


for (_x, _y) in np.asarray(trajectory).T:
    print(_x, _y)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(name) if name == "/jax/core/compile/backend_compile_duration" else None
    )

    @partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
    def _driver_step(x, y, alpha, beta, gamma, delta, dt):
        # the first cell's step, to count its compilations in the driver loop
        dxdt = alpha * x - beta * x * y
        dydt = delta * x * y - gamma * y
        return x + dxdt * dt, y + dydt * dt

    step = partial(_driver_step, alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt)
    x_prev, y_prev = 10.0, 5.0
    n = len(compiles)
    for i in range(num_steps):
        x_prev, y_prev = step(x_prev, y_prev)
    assert len(compiles) - n <= 2  # the first call takes Python floats, the rest arrays

    assert np.allclose(np.asarray(final_state), [float(xs[-1]), float(ys[-1])], atol=1e-4)
    assert np.allclose(np.asarray(final_state), [float(x), float(y)], atol=1e-4)
    assert np.allclose(np.asarray(final_state), [float(x_prev), float(y_prev)], atol=1e-4)
