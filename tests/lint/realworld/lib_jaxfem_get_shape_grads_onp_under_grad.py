# source: https://github.com/deepmodeling/jax-fem/blob/6eda838ea91ce79f2ebfe6473b8d650c771e08c7/jax_fem/fe.py
#   (FiniteElement.get_shape_grads verbatim before commit 2fef406 "first update on
#   differentiable mesh functions, for the precomputation, change to JAX rather than NumPy
#   for tracing"; jax_fem is not installed, so a stand-in class holds the attributes the
#   method reads for bilinear quadrilaterals with 2x2 Gauss points (basix's shape function
#   gradients written out), and a 2x2 mesh of the unit square stands in for meshio's. The
#   __main__ block differentiates the mesh area, the sum of JxW, with respect to the nodal
#   coordinates with jax.value_and_grad, as the fixing commit's
#   applications/differentiable_mesh/example.py does)
# observed on jax 0.10.2 CPU: onp.take(self.points, ...) fails: under grad the points are a
#   tracer, and NumPy's take hands it to the tracer's own take with mode='raise', which JAX
#   rejects (NotImplementedError); given the points as a NumPy array, as before the commit,
#   it runs. The onp.sum, onp.linalg.det and onp.linalg.inv after it take the same traced
#   coordinates (TracerArrayConversionError once take is fixed; the lines the commit
#   changed to jax.numpy).
# gap: types
import numpy as onp
import jax
import jax.numpy as np


class FiniteElementStandIn:
    """Stand-in for jax_fem.fe.FiniteElement: the attributes get_shape_grads reads, for
    bilinear quadrilaterals (QUAD4) with 2x2 Gauss points, as jax_fem.basis would give."""

    def __init__(self, points, cells):
        self.points = points
        self.cells = cells
        self.dim = 2
        g = 1. / onp.sqrt(3.)
        quad_points = onp.array([[-g, -g], [g, -g], [g, g], [-g, g]])
        self.quad_weights = onp.ones(4)
        corners = onp.array([[-1., -1.], [1., -1.], [1., 1.], [-1., 1.]])
        # d N_a / d xi_k at each quad point: (num_quads, num_nodes, dim)
        self.shape_grads_ref = onp.stack([
            corners[None, :, 0] * (1. + corners[None, :, 1] * quad_points[:, None, 1]) / 4.,
            corners[None, :, 1] * (1. + corners[None, :, 0] * quad_points[:, None, 0]) / 4.,
        ], axis=-1)
        self.num_quads = self.shape_grads_ref.shape[0]
        self.num_nodes = self.shape_grads_ref.shape[1]

    def get_shape_grads(self):
        """Compute shape function gradient value.

        The gradient is w.r.t physical coordinates. 
        Refer to 
        Hughes, Thomas JR.
        The finite element method: linear static and dynamic finite element analysis. Courier Corporation, 2012.
        Page 147, Eq. (3.9.3)

        Returns
        -------
        shape_grads_physical : NumpyArray
            Shape is (num_cells, num_quads, num_nodes, dim).
        JxW : NumpyArray
            Shape is (num_cells, num_quads).
        """
        assert self.shape_grads_ref.shape == (self.num_quads, self.num_nodes, self.dim)
        physical_coos = onp.take(self.points, self.cells, axis=0)  # (num_cells, num_nodes, dim)  # expect: JIT402
        # (num_cells, num_quads, num_nodes, dim, dim) -> (num_cells, num_quads, 1, dim, dim)
        jacobian_dx_deta = onp.sum(physical_coos[:, None, :, :, None] *  # tolerate: JIT402
                                   self.shape_grads_ref[None, :, :, None, :], axis=2, keepdims=True)
        jacobian_det = onp.linalg.det(jacobian_dx_deta)[:, :, 0]  # (num_cells, num_quads)  # tolerate: JIT402
        jacobian_deta_dx = onp.linalg.inv(jacobian_dx_deta)  # tolerate: JIT402
        # (1, num_quads, num_nodes, 1, dim) @ (num_cells, num_quads, 1, dim, dim)
        # (num_cells, num_quads, num_nodes, 1, dim) -> (num_cells, num_quads, num_nodes, dim)
        shape_grads_physical = (self.shape_grads_ref[None, :, :, None, :]
                                @ jacobian_deta_dx)[:, :, :, 0, :]
        JxW = jacobian_det * self.quad_weights[None, :]
        return shape_grads_physical, JxW



def unit_square_mesh(n):
    xs = onp.linspace(0., 1., n + 1)
    points = onp.array([[x, y] for y in xs for x in xs])
    cells = onp.array([[j * (n + 1) + i, j * (n + 1) + i + 1,
                        (j + 1) * (n + 1) + i + 1, (j + 1) * (n + 1) + i]
                       for j in range(n) for i in range(n)])
    return points, cells


def total_area(points, cells):
    fe = FiniteElementStandIn(points, cells)
    shape_grads, JxW = fe.get_shape_grads()
    return np.sum(JxW)


if __name__ == "__main__":
    points0, cells = unit_square_mesh(2)
    area, grad_ad = jax.value_and_grad(lambda pts: total_area(pts, cells))(np.asarray(points0))
