# source: https://github.com/Systems-Theory-in-Systems-Biology/EPI/blob/1b37d9e1d0b7533c3791b726aa00741ffdedf010/eulerpi/examples/heat/heat.py
#   (pull request https://github.com/Systems-Theory-in-Systems-Biology/EPI/pull/66, "Feature/heat
#   model", commit "Improve heat model ... Accelerate jax compilation": after the review remark that
#   the Python time loop was "very likely killing the jit compilation", the explicit Euler loop
#   becomes `fori_loop(0, len(t) - 1, integrate_time_step, u)`)
# observed on jax 0.10.2 CPU: runs clean: `jit(cls.forward)` and `jit(jacrev(cls.forward))` trace
#   the classmethod once; `len(t)`, the grid and `dt` come from NumPy constants and stay static,
#   the parameters are traced only through the update arithmetic, and the jitted forward equals
#   the unjitted one. Kept as the commit wrote it: the class Heat (up to its `jacobian` stub).
#   Added: eulerpi's JaxModel is replaced by a stand-in holding its `init_fw_and_bw` lines
#   (`cls.fw = jit(cls.forward)`, `cls.bw = jit(jacrev(cls.forward))`) and storing the
#   constructor arguments; the `__main__` block.
# gap: other
from typing import Optional

import jax.numpy as jnp
import numpy as np
from jax import jacrev, jit
from jax.lax import fori_loop


class JaxModel:
    # stand-in for eulerpi.core.model.JaxModel: stores the arguments and jits forward/jacobian
    def __init__(self, central_param, param_limits, name=None, **kwargs):
        self.central_param = central_param
        self.param_limits = param_limits
        self.name = name or type(self).__name__

    @classmethod
    def init_fw_and_bw(cls):
        cls.fw = jit(cls.forward)
        cls.bw = jit(jacrev(cls.forward))

class Heat(JaxModel):
    """A two-dimensional anisotropic heat conduction equation model on a square domain with four dirichlet boundaries.
    The model is defined by the following partial differential equation on the square spacial domain :math:`\\Omega = [0, 1]^2` on the time interval :math:`[0, 0.1]`:
    .. math::
        \\frac{\\partial u}{\\partial t} = \\div \\left( \\kappa \\nabla u \\right)
    subject to
    .. math::
        u(x, y, t=0) = 0
    and
    .. math::
        u(0, y, t) = 1, \\quad u(1, y, t) = 0, \\quad u(x, 0, t) = 1, \\quad u(x, 1, t) = 0
    with the thermal conductivity matrix :math:`\\kappa` and the temperature :math:`u`.
    Inference is performed on the entries of :math:`\\kappa`: param[0] = :math:`\\kappa_{11}`, param[1] = :math:`\\kappa_{22}`, param[2] = :math:`\\kappa_{12}`.
    Spatial discretization uses a finite difference scheme with a uniform grid, time stepping is done using the explicit Euler method.
    """

    param_dim = 3
    data_dim = 5
    evaluation_points = jnp.array(
        [
            [0.25, 0.25, 1],
            [0.75, 0.25, 1],
            [0.5, 0.5, 1],
            [0.25, 0.75, 1],
            [0.75, 0.75, 1],
        ]
    )

    CENTRAL_PARAM = np.array([1.5, 1.5, 0.5])
    PARAM_LIMITS = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])

    def __init__(
        self,
        central_param: np.ndarray = CENTRAL_PARAM,
        param_limits: np.ndarray = PARAM_LIMITS,
        name: Optional[str] = None,
        **kwargs,
    ) -> None:
        """Default constructor for the heat model.

        Args:
            central_param (np.ndarray, optional): Central parameter within the parameter domain, where the density is non-zero. Defaults to CENTRAL_PARAM.
            param_limits (np.ndarray, optional): Maximum parameter limits for sampling or grid-based inference. The parameter domain is contained within the box given by param_limits. Defaults to PARAM_LIMITS.
            name (Optional[str], optional): Name for the model. Defaults to None means the model name is "heat".
        """
        super().__init__(central_param, param_limits, name=name, **kwargs)

    @classmethod
    def forward(self, param: np.ndarray) -> np.ndarray:
        """Forward method for the heat model. Yields the solution of the anisotropic heat conduction equation at time :math:`\\t=0.1`
        in five spatial points, which are arranged similar to the number "five" on a dice.

        Args:
            param (np.ndarray): Entries of the conductivity matrix: param[0] = :math:`\\kappa_{11}`, param[1] = :math:`\\kappa_{22}`, param[2] = :math:`\\kappa_{12}`

        Returns:
            np.ndarray: The solution of the anisotropic heat conduction equation at time :math:`\\t=0.1`
        in five spacial points, which are arranged similar to the number "five" on a dice.
        """

        solution = self.perform_simulation(self, param)
        # return the solution at four evaluation points
        evaluation_indices = jnp.multiply(
            self.evaluation_points,
            jnp.array(
                [solution.shape[0], solution.shape[1], solution.shape[2]]
            ),
        ).astype(int)
        sim_res = jnp.array(
            solution[
                evaluation_indices[:, 0],
                evaluation_indices[:, 1],
                evaluation_indices[:, 2],
            ]
        )
        return sim_res

    def param_is_within_domain(self, param: np.ndarray) -> bool:
        """Checks whether a parameter is within the parameter domain of the model.
        This condition stems from thermodynamical considerations.

        Args:
            param(np.ndarray): The parameter to check.

        Returns:
            bool: True if the parameter is within the limits.

        """
        return param[0] * param[1] > param[2] ** 2

    def perform_simulation(self, param: np.ndarray) -> np.ndarray:
        """Performs a simulation of the heat equation with the given parameters.

        Args:
            param (np.ndarray): Entries of the conductivity matrix: param[0] = :math:`\\kappa_{11}`, param[1] = :math:`\\kappa_{22}`, param[2] = :math:`\\kappa_{12}`

        Returns:
            np.ndarray: An array containing the solution of the anisotropic heat conduction equation, where the first two indices correspond to the x and y coordinates, respectively, and the third index corresponds to the time.
        """
        # set up physical properties
        time_span = np.array([0, 0.1])
        plate_length = np.array([1, 1])

        # define the grid
        num_grid_points = 20
        dx = plate_length[0] / num_grid_points
        dy = plate_length[1] / num_grid_points

        # determine the time step size: this uses the stability condition for the explicit Euler method and parabolic problems, where
        # dt <= dx * dy / safety_factor * (4 * kappa), where kappa is the thermal conductivity and safety_factor >= 1.
        # Using the maximum of the thermal conductivity here is necess
        safety_factor = 1.25
        dt = min(dx, dy) ** 2 / (
            safety_factor * 4 * np.max(self.PARAM_LIMITS[:, 1])
        )
        x = jnp.linspace(0, 1, num_grid_points)
        y = jnp.linspace(0, 1, num_grid_points)
        t = jnp.arange(time_span[0], time_span[1] + dt, dt)
        t = t.at[-1].set(time_span[1])

        # initial solution
        u = jnp.empty((len(x), len(y), len(t)))

        # define the initial condition
        u_init = jnp.zeros((len(x), len(y)))
        u = u.at[:, :, 0].set(u_init)

        # define the boundary conditions
        u_top = jnp.ones((len(x), len(t)))
        u_bottom = jnp.zeros((len(x), len(t)))
        u_left = jnp.ones((len(y), len(t)))
        u_right = jnp.zeros((len(y), len(t)))

        u = u.at[:, 0, :].set(u_bottom)
        u = u.at[:, -1, :].set(u_top)
        u = u.at[0, :, :].set(u_left)
        u = u.at[-1, :, :].set(u_right)

        # solve numerically
        # body function for the for loop:
        def integrate_time_step(n, u):
            du_dx2 = (
                u[2:, 1:-1, n] - 2 * u[1:-1, 1:-1, n] + u[:-2, 1:-1, n]
            ) / dx**2
            du_dy2 = (
                u[1:-1, 2:, n] - 2 * u[1:-1, 1:-1, n] + u[1:-1, :-2, n]
            ) / dy**2
            du_dx_dy = (
                u[2:, 2:, n] - u[2:, :-2, n] - u[:-2, 2:, n] + u[:-2, :-2, n]
            ) / (4 * dx * dy)
            u = u.at[1:-1, 1:-1, n + 1].set(
                (
                    param[0] * du_dx2
                    + param[1] * du_dy2
                    + 2 * param[2] * du_dx_dy
                )
                * dt
                + u[1:-1, 1:-1, n]
            )
            return u

        u = fori_loop(0, len(t) - 1, integrate_time_step, u)
        return u

    def jacobian(self, param: np.ndarray) -> np.ndarray:
        pass



if __name__ == "__main__":
    model = Heat()
    Heat.init_fw_and_bw()
    param = jnp.array(Heat.CENTRAL_PARAM)
    data = Heat.fw(param)
    assert data.shape == (5,)
    np.testing.assert_allclose(data, Heat.forward(param), rtol=1e-5, atol=1e-6)
    jac = Heat.bw(param)
    assert jac.shape == (5, 3) and bool(jnp.all(jnp.isfinite(jac)))
    assert model.param_is_within_domain(param)
