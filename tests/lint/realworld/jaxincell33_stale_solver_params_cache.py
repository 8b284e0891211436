# source: https://github.com/uwplasma/JAX-in-Cell/blob/12531f53e91774fea804d2fa4132e6ff111274cb/jaxincell/_simulation.py (first commit of https://github.com/uwplasma/JAX-in-Cell/pull/33; the loop in __main__ follows examples/scaling_energy_time.py at the same commit)
# observed on jax 0.10.2 CPU: simulation() caches its jitted closure and compares the stored solver_parameters dict with the one passed in; scaling_energy_time.py mutates that same dict in place, so the comparison is always true and every later run reuses the executable traced with the first number_grid_points / total_steps
# gap: stale-state-attributes
# observed: line 52 after the first call (except branch) in-place changes of number_grid_points are ignored: 60 cells run when 90 and 135 are asked
# observed: line 45 a sim built in the else branch keeps total_steps=100 after the same dict is changed to 200
# jit_simulation is a stand-in for the PIC solver (jax_tqdm, the Boris/CN pushers and the particle initialisation are not needed):
# it builds a field on number_grid_points cells and advances it total_steps steps, so the output shape shows which solver_parameters were traced.
# initialize_solver_parameters and simulation are copied from the commit; the print in the loop of __main__ is replaced by checks.
import jax.numpy as jnp
from jax import lax, jit


def initialize_solver_parameters(solver_parameters={}):
    default_solver_parameters = {
        "number_grid_points": 100,
        "number_pseudoelectrons": 3000,
        "number_pseudoparticles_species": None,
        "total_steps": 1000,
        "field_solver": 0,
        "time_evolution_algorithm": 0,
        "max_number_of_Picard_iterations_implicit_CN": 20,
        "number_of_particle_substeps_implicit_CN": 2
    }
    parameters = {**default_solver_parameters, **solver_parameters}

    # Compute derived parameters based on user-provided or default values
    for key, value in parameters.items():
        if callable(value):  # If the value is a lambda function, compute it
            parameters[key] = value(parameters)
    
    return parameters


def simulation(input_parameters={}, solver_parameters={}, positions=None, velocities=None):
    #  This isn't very pythonic but it allows us to avoid recompiling the JIT function if we call simulation(...) multiple times with the same solver parameters.
    #  This is a workaround for the fact that jit with static_argnames doesn't work when the static argument is a dictionary (since dictionaries are unhashable and can't be used as static arguments in JIT-compiled functions)
    global __jaxincell_internal_solver_parameters_previous
    global sim
    try:
        if __jaxincell_internal_solver_parameters_previous == solver_parameters:
            return sim(input_parameters, positions, velocities)
        else:
            # sim = jit(lambda _input_parameters, _positions, _velocities: jit_simulation(input_parameters=_input_parameters, solver_parameters=solver_parameters, positions=_positions, velocities=_velocities))
            def simulation_call(_input_parameters, _positions, _velocities):
                return jit_simulation(input_parameters=_input_parameters, solver_parameters=solver_parameters, positions=_positions, velocities=_velocities)  # expect: JIT201
            sim = jit(simulation_call)
            __jaxincell_internal_solver_parameters_previous = solver_parameters
            return sim(input_parameters, positions, velocities)
    except:
        # sim = jit(lambda _input_parameters, _positions, _velocities: jit_simulation(input_parameters=_input_parameters, solver_parameters=solver_parameters, positions=_positions, velocities=_velocities))
        def simulation_call(_input_parameters, _positions, _velocities):
            return jit_simulation(input_parameters=_input_parameters, solver_parameters=solver_parameters, positions=_positions, velocities=_velocities)  # expect: JIT201
        sim = jit(simulation_call)
        __jaxincell_internal_solver_parameters_previous = solver_parameters
        return sim(input_parameters, positions, velocities)


def jit_simulation(input_parameters={}, solver_parameters={}, positions=None, velocities=None):
    # stand-in for the PIC solver
    solver_parameters = initialize_solver_parameters(solver_parameters)
    number_grid_points = solver_parameters["number_grid_points"]
    total_steps = solver_parameters["total_steps"]
    length = input_parameters["length"]
    dx = length / number_grid_points
    dt = input_parameters["timestep_over_spatialstep_times_c"] * dx / 299792458.0
    grid = jnp.arange(number_grid_points) * dx
    k = 2 * jnp.pi * input_parameters["wavenumber_electrons_x"] / length
    E0 = input_parameters["amplitude_perturbation_x"] * jnp.stack(
        [jnp.sin(k * grid), jnp.zeros_like(grid), jnp.zeros_like(grid)], axis=-1)

    def step(E, step_index):
        E = E * jnp.cos(input_parameters["electron_drift_speed_x"] * k * dt)
        return E, E

    _, electric_field_over_time = lax.scan(step, E0, jnp.arange(total_steps))
    return {
        "electric_field": electric_field_over_time,
        "dx": dx,
        "time_array": jnp.linspace(0, total_steps * dt, total_steps),
    }


if __name__ == "__main__":
    input_parameters = {
        "length": 1e-2,
        "amplitude_perturbation_x": 5e-4,
        "wavenumber_electrons_x": 8,
        "timestep_over_spatialstep_times_c": 0.3,
        "electron_drift_speed_x": 1e8,
    }
    solver_parameters = {
        "field_solver": 0,
        "number_grid_points": 60,
        "number_pseudoelectrons": 3500,
        "total_steps": 150,
    }

    # "Run 1 simulation for JIT compilation" (the first call builds `sim` in the except branch)
    base_simulation = simulation(input_parameters, solver_parameters)
    assert base_simulation["electric_field"].shape == (150, 60, 3)

    # measure_time_and_error(grid_points_list, 'number_grid_points'): the dict is mutated in place
    stale = []
    for j, param in enumerate([60, 90, 135]):
        old_param = solver_parameters['number_grid_points']
        solver_parameters['number_grid_points'] = param
        solver_parameters['number_pseudoelectrons'] = int(solver_parameters['number_pseudoelectrons'] + j)
        output = simulation(input_parameters, solver_parameters)
        fresh = jit_simulation(input_parameters, dict(solver_parameters))
        stale.append((output["electric_field"].shape[1], fresh["electric_field"].shape[1]))
        solver_parameters['number_grid_points'] = old_param
    print("except-branch closure: (grid points run, grid points asked) =", stale)
    assert stale == [(60, 60), (60, 90), (60, 135)]

    # a different (unequal) dict goes through the else branch; mutating that dict afterwards is ignored as well
    other_parameters = {"number_grid_points": 40, "total_steps": 100}
    out = simulation(input_parameters, other_parameters)
    assert out["electric_field"].shape == (100, 40, 3)
    other_parameters["total_steps"] = 200
    out = simulation(input_parameters, other_parameters)
    fresh = jit_simulation(input_parameters, dict(other_parameters))
    print("else-branch closure: total_steps run", out["electric_field"].shape[0], "asked", fresh["electric_field"].shape[0])
    assert out["electric_field"].shape[0] == 100 and fresh["electric_field"].shape[0] == 200
