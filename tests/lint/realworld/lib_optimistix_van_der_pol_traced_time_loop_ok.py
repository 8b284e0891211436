# source: https://github.com/patrick-kidger/optimistix/blob/v0.1.0/docs/examples/van_der_pol.ipynb
#   (the code cells before the plot: imports, the controlled Van der Pol module, the
#   objective's first evaluation and the BFGS minimisation)
# observed on jax 0.10.2 CPU (optimistix 0.1.0, diffrax 0.7.2, equinox 0.13.8): runs clean.
#   optx.minimise traces `controlled` with the control inputs and `args` as tracers: the
#   list comprehension iterates over the 99 elements of the traced `timepoints[:-1]` (a
#   fixed length, so Python can loop over it), `jnp.put(..., inplace=False)` returns new
#   arrays, and `range(self.num_control_inputs)` reads a static field. The final objective
#   is below the initial one. Left out: `import matplotlib.pyplot as plt` and the plotting
#   cell (matplotlib is not installed). Added: the __main__ block's comparison.
# gap: exemption-vs-JAX
import diffrax as dfx
import equinox as eqx
import jax.numpy as jnp
import jax.random as jr
import optimistix as optx


def van_der_pol(time, states, control):
    x, y = states
    u = control.evaluate(time)
    dydt = (1 - x**2) * y - x + u
    return jnp.array([y, dydt])


class ControlledVanDerPol(eqx.Module):
    t0: float
    t1: float
    dt0: float
    num_control_inputs: int
    control_weight: float

    def interpolate(self, control_inputs):
        """Create a dfx.LinearInterpolation from the control inputs."""
        interval_bounds = jnp.linspace(self.t0, self.t1, self.num_control_inputs + 1)

        # Define offsets for sharp step-wise interpolation
        offsets = jnp.nextafter(interval_bounds[1:-1], interval_bounds[0:-2])
        timepoints = jnp.sort(jnp.concatenate([interval_bounds, offsets]))
        indices = jnp.array([2 * i for i in range(0, self.num_control_inputs)])

        template = jnp.zeros_like(timepoints)
        inputs = jnp.put(template, indices, control_inputs, inplace=False)
        inputs = jnp.put(inputs, indices + 1, control_inputs, inplace=False)

        return dfx.LinearInterpolation(ts=timepoints, ys=inputs)

    def integrate(self, interpolated_control, timepoints, initial_condition):
        """Integrate the system and return the evolving state."""
        saveat = dfx.SaveAt(ts=timepoints)

        return dfx.diffeqsolve(
            dfx.ODETerm(van_der_pol),
            dfx.Tsit5(),
            self.t0,
            self.t1,
            self.dt0,
            initial_condition,
            args=interpolated_control,
            saveat=saveat,
        ).ys

    def __call__(self, control_inputs, timepoints__initial_condition):
        """Compute the objective value for the given control inputs.
        The integral objective function penalises deviations from the origin, as well as
        excessive control inputs. In this example, we approximate the integral with a
        left-sided Riemann sum.

        Returns the evolving state and the interpolated control as auxiliary output.
        """
        timepoints, initial_condition = timepoints__initial_condition
        interpolated_control = self.interpolate(control_inputs)
        states = self.integrate(interpolated_control, timepoints, initial_condition)

        # Compute the cost function as a left-sided Riemann sum
        time_intervals = timepoints[1:] - timepoints[:-1]
        control_values = [
            interpolated_control.evaluate(t) ** 2 for t in timepoints[:-1]
        ]
        control_cost = jnp.sum(jnp.asarray(control_values) * time_intervals)
        weighted_control_cost = self.control_weight * control_cost

        x, y = jnp.asarray(states)[:-1, :].T
        state_cost = jnp.sum(x**2 * time_intervals) + jnp.sum(y**2 * time_intervals)
        objective_value = weighted_control_cost + state_cost

        return objective_value, (states, interpolated_control)  # auxiliary output


t0 = 0.0
t1 = 10.0
dt0 = 0.01
num_control_inputs = 30
controlled = ControlledVanDerPol(t0, t1, dt0, num_control_inputs, 0.1)
timepoints = jnp.linspace(t0, t1, 100)

u0 = 0.25 * jr.normal(jr.key(0), (num_control_inputs,))
initial_condition = 20 * jnp.array([0.1, 0.1])
args = (timepoints, initial_condition)

value, initial_aux = controlled(u0, args)
print("Initial value of the objective function:", value)


if __name__ == "__main__":
    solver = optx.BFGS(rtol=1e-10, atol=1e-12)
    solution = optx.minimise(controlled, solver, u0, args, has_aux=True)
    print("Final value of the objective function:", solution.state.f_info.f)
    assert solution.state.f_info.f < value
