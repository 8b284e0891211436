# source: https://github.com/patrick-kidger/optimistix/blob/v0.1.0/docs/examples/custom_solver.ipynb
#   (the example's second code cell, NewtonDescent; the first cell, a MyNewMinimiser
#   built from `optx.BFGSUpdate`, is left out: optimistix 0.1.0 has no BFGSUpdate)
# observed on jax 0.10.2 CPU (optimistix 0.1.0, lineax 0.1.1, equinox 0.13.8): runs
#   clean. `NewtonDescent.query` runs inside optimistix's jitted while loop; it branches
#   only on isinstance of `f_info` (which FunctionInfo class the solver built, a Python
#   fact), solves with lineax, and turns the lineax result into an optimistix RESULTS
#   enumeration item without converting any traced value; `step` scales the stored
#   Newton direction by the traced step size. Added: the imports of optimistix and
#   Callable, and a __main__ block that plugs NewtonDescent into two small solver
#   classes, a BFGS (hessian inverse: the first branch) minimising the Rosenbrock
#   function under jax.jit for three starting points with one trace, and a Gauss-Newton
#   (residual Jacobian: the lineax branch) solving a least-squares problem, and checks
#   both solutions.
# gap: exemption-vs-JAX
from collections.abc import Callable  # added: used by the __main__ block

import optimistix as optx  # added: the notebook imports it in its first cell

import equinox as eqx  # https://github.com/patrick-kidger/equinox
import jax.tree_util as jtu
import lineax as lx  # https://github.com/google/lineax
from jaxtyping import Array, PyTree  # https://github.com/google/jaxtyping


class NewtonDescentState(eqx.Module):
    newton: PyTree[Array]
    result: optx.RESULTS


class NewtonDescent(optx.AbstractDescent):
    def init(self, y, f_info_struct):
        del f_info_struct
        # Dummy values of the right shape; unused.
        return NewtonDescentState(y, optx.RESULTS.successful)

    def query(self, y, f_info, state):
        del state
        if isinstance(f_info, optx.FunctionInfo.EvalGradHessianInv):
            newton = f_info.hessian_inv.mv(f_info.grad)
            result = optx.RESULTS.successful
        else:
            if isinstance(f_info, optx.FunctionInfo.EvalGradHessian):
                operator = f_info.hessian
                vector = f_info.grad
            elif isinstance(f_info, optx.FunctionInfo.ResidualJac):
                operator = f_info.jac
                vector = f_info.residual
            else:
                raise ValueError(
                    "Cannot use a Newton descent with a solver that only evaluates the "
                    "gradient, or only the function itself."
                )
            out = lx.linear_solve(operator, vector)
            newton = out.value
            result = optx.RESULTS.promote(out.result)
        return NewtonDescentState(newton, result)

    def step(self, step_size, state):
        return jtu.tree_map(lambda x: -step_size * x, state.newton), state.result


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp

    class NewtonBFGS(optx.AbstractBFGS):
        rtol: float
        atol: float
        norm: Callable = optx.max_norm
        use_inverse: bool = True
        descent: optx.AbstractDescent = NewtonDescent()
        search: optx.AbstractSearch = optx.BacktrackingArmijo()
        verbose: Callable = optx.BFGS(rtol=0.0, atol=0.0).verbose  # the default no-op

    traces = []

    def rosenbrock(y, args):
        traces.append("rosenbrock")
        return jnp.sum(100.0 * (y[1:] - y[:-1] ** 2) ** 2 + (1.0 - y[:-1]) ** 2)

    @jax.jit
    def minimise(y0):
        return optx.minimise(
            rosenbrock, NewtonBFGS(rtol=1e-6, atol=1e-6), y0, max_steps=2000
        ).value

    for y0 in (jnp.array([-1.2, 1.0]), jnp.array([0.5, -0.3])):
        assert jnp.allclose(minimise(y0), 1.0, atol=1e-2), minimise(y0)
    n_rosenbrock = len(traces)
    minimise(jnp.array([2.0, 2.0]))
    assert len(traces) == n_rosenbrock  # no retrace for a new starting point

    class NewtonGaussNewton(optx.AbstractGaussNewton):
        rtol: float
        atol: float
        norm: Callable = optx.max_norm
        descent: optx.AbstractDescent = NewtonDescent()
        search: optx.AbstractSearch = optx.LearningRate(1.0)
        verbose: Callable = optx.BFGS(rtol=0.0, atol=0.0).verbose  # the default no-op

    def residuals(y, args):
        target = args
        return jnp.stack([y[0] ** 2 + y[1] - target[0], y[0] - y[1] ** 3 - target[1]])

    @jax.jit
    def least_squares(y0, target):
        return optx.least_squares(
            residuals, NewtonGaussNewton(rtol=1e-6, atol=1e-6), y0, args=target
        ).value

    target = jnp.array([3.0, 1.0])
    y = least_squares(jnp.array([1.0, 1.0]), target)
    assert jnp.allclose(residuals(y, target), 0.0, atol=1e-4), residuals(y, target)
