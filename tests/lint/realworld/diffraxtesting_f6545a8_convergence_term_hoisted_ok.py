# source: https://github.com/kenneth-meyer/diffrax_testing/blob/f6545a807bd35bd83e5b63e5b995ba4c042d84bc/examples/convergence.py
# observed on jax 0.10.2 CPU: runs clean; the vector field lambda and its ODETerm are built once before the loop (the
#   diffrax FAQ's advice against redefining the vector field on every iteration), and the errors fall with the step size
#   for every solver (Dopri5 4.5e-13, Euler 5.2e-3 at dt0 0.01).
# good file: a user's convergence study of diffrax solvers on dy/dt = -y^3. The docstring of l2_norm, which spells `\Omega`, is a raw string (r""") here: the corpus test compiles every file with warnings as errors.
# gap: per-call-recompile
# added/changed: the matplotlib import and plots replaced by checks in the __main__ block (the solution kept per solver at plot_at
#   as the author does); three commented-out lines inside the loop dropped; the timing print kept.
"""

This is a quick check of convergence rates vs. step size for different ODE solvers

"""

from diffrax import diffeqsolve, Dopri5, ODETerm, SaveAt, PIDController
import diffrax as diffrax

import numpy as np
import jax.numpy as jnp
import jax

import time


def l2_norm(my_vec):
    r""" Computes $L^2(\Omega) norm of a quantity

    Computes:
    $$|| u ||_{L^2(\Omega)} = \sqrt{\sum_{i=1}^n u_i^2}$$

    Parameters
    ----------
    my_vec: (CHECK THIS TYPE)

    """

    return jnp.linalg.norm(my_vec)

if __name__ == "__main__":

    jax.config.update("jax_enable_x64", True)

    vector_field = lambda t, y, args: -y**3
    term = ODETerm(vector_field)
    
    solver_list = ["Dopri5", "Dopri8", "Euler", "Heun"]
    dt_list = [1.0, 0.5, 0.1, 0.05, 0.01]
    plot_at = dt_list[2]                                # plot the solution for specific dt

    ts = np.linspace(0,3,16)
    
    # for the specified problem
    y_true = 1 / np.sqrt(2*ts + 1) # analytical solution

    saveat = SaveAt(ts=ts)
    
    # can't use an adaptive step size here - not passing the arg gives a constant step size
    #stepsize_controller = PIDController(rtol=1e-5, atol=1e-5)

    start = time.time()

    sol_list = []
    err_list = np.zeros((len(solver_list), len(dt_list)))
    # this looks like something that can be vmapped....look into this and do some performace
    # benchmarking
    solver_i = 0
    dt_j = 0

    # structure for saving things will need to change once this is vmapped
    for solver_name in solver_list:
        for dt in dt_list:
            # chose which solver to use from the specified list
            solver = getattr(diffrax, solver_name)()

            # solve the ODE
            sol = diffeqsolve(term, solver, t0=0, t1=3, dt0=dt, y0=1, saveat=saveat)

            # append l2 norm of error to an array
            err_list[solver_i][dt_j] = l2_norm(sol.ys - y_true)

            # save solution at desired time step             
            if np.isclose(dt, plot_at):
                sol_list.append(sol)
            dt_j += 1
        dt_j = 0
        solver_i += 1
    end = time.time()

    # checks in place of the plots
    assert len(sol_list) == len(solver_list)
    for i in range(len(solver_list)):
        assert err_list[i][-1] < err_list[i][0], (solver_list[i], err_list[i])
    assert err_list[0][-1] < 1e-8 and err_list[2][-1] < 1e-2, err_list
    print(err_list)
    print("Total time this took: " + str(end - start))
