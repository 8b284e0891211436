# source: https://github.com/uwplasma/JAX-in-Cell/blob/12531f53e91774fea804d2fa4132e6ff111274cb/examples/auto-differentiability.py
# observed on jax 0.10.2 CPU: the jitted mean_electric_field stores its traced argument into the module-level input_parameters dict; after jit and after grad the dict holds a leaked tracer, and using the dict again outside the trace raises UnexpectedTracerError
# gap: other
# observed: line 47 the traced electron_drift_speed is left in the global input_parameters dict (a DynamicJaxprTracer after jit and after grad); simulation(input_parameters, ...) afterwards raises UnexpectedTracerError
# simulation is a stand-in for jaxincell.simulation (a field on number_grid_points cells advanced total_steps steps, driven by electron_drift_speed_x);
# jax.config.update('jax_enable_x64', True) is what importing jaxincell does; load_parameters('input.toml') is replaced by the values of examples/input.toml; the plotting at the end is left out.
import time
import jax
import jax.numpy as jnp
from jax import jit, grad, lax, block_until_ready, debug

jax.config.update("jax_enable_x64", True)


def simulation(input_parameters, solver_parameters):
    # stand-in for jaxincell.simulation
    G = solver_parameters["number_grid_points"]
    length = input_parameters["length"]
    dx = length / G
    dt = input_parameters["timestep_over_spatialstep_times_c"] * dx / 299792458.0
    grid = jnp.arange(G) * dx
    k = 2 * jnp.pi * input_parameters["wavenumber_electrons_x"] / length
    E0 = input_parameters["amplitude_perturbation_x"] * jnp.stack(
        [jnp.sin(k * grid) + 1.0, jnp.zeros_like(grid), jnp.zeros_like(grid)], axis=-1)

    def step(E, i):
        E = E * jnp.cos(input_parameters["electron_drift_speed_x"] * k * dt) + 1e-9
        return E, E

    _, E_t = lax.scan(step, E0, jnp.arange(solver_parameters["total_steps"]))
    return {"electric_field": E_t}


# stand-in for load_parameters(input_toml_path)
input_parameters = {"length": 0.01, "amplitude_perturbation_x": 0.0000005, "wavenumber_electrons_x": 1,
                    "timestep_over_spatialstep_times_c": 4.5, "electron_drift_speed_x": 6e7}
solver_parameters = {"field_solver": 0, "time_evolution_algorithm": 0, "number_grid_points": 70,
                     "number_pseudoelectrons": 3500, "total_steps": 1100}

input_parameters["print_info"] = False
solver_parameters["total_steps"] = 400
solver_parameters["number_grid_points"] = 60
solver_parameters["number_pseudoelectrons"] = 3000

@jit
def mean_electric_field(electron_drift_speed):
    input_parameters["electron_drift_speed_x"] = electron_drift_speed  # expect: JIT202
    output = block_until_ready(simulation(input_parameters, solver_parameters))
    electric_field = jnp.mean(output['electric_field'][:, :, 0], axis=1)
    mean_E = jnp.mean(lax.slice(electric_field, [solver_parameters["total_steps"]//2], [solver_parameters["total_steps"]]))
    return mean_E


if __name__ == "__main__":
    # Calculate the derivative of the plasma frequency with respect to the wavenumber
    electron_drift_speed = 1e8
    epsilon_array = [1e-11, 1e-9, 1e-7, 1e-5, 1e-3, 1e-1]
    E_field = mean_electric_field(electron_drift_speed)
    print(f"Mean electric field at drift speed {electron_drift_speed} m/s: {E_field}")
    leaked_after_jit = input_parameters["electron_drift_speed_x"]
    assert isinstance(leaked_after_jit, jax.core.Tracer)

    start = time.time()
    derivative_JAX = grad(mean_electric_field)(electron_drift_speed)
    time_JAX_derivative = time.time()-start
    assert isinstance(input_parameters["electron_drift_speed_x"], jax.core.Tracer)

    derivative_analytical_array = []
    for epsilon in epsilon_array:
        debug.print("Calculating derivative for epsilon = {}", epsilon)
        E_field_plus_epsilon = mean_electric_field(electron_drift_speed+epsilon)
        derivative_analytical_array.append((E_field_plus_epsilon - E_field) / epsilon)

    # the global dict still holds the tracer; running a plain simulation with it fails
    print("input_parameters['electron_drift_speed_x'] =", type(input_parameters["electron_drift_speed_x"]).__name__)
    try:
        simulation(input_parameters, solver_parameters)
    except jax.errors.UnexpectedTracerError:
        print("UnexpectedTracerError when the dict is used again outside jit")
    else:
        raise AssertionError("expected UnexpectedTracerError")
