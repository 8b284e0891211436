# source: https://github.com/aadityacs/simple_TO/blob/d2efa4139fa3f7e249d42c1415aced9ca99c00ba/structural/density_TO.ipynb
#   (simple_TO by Aaditya Chandrasekhar: the structural density topology-optimization notebook's
#   Optimizer, with the modules it imports from structural/ at the same commit: utils.Extent, mesher,
#   material, bcs and FE_routines.FEA, inlined in that order)
# observed on jax 0.10.2 CPU: runs clean. objective_fn is jitted once at class level with self static
#   (an Optimizer hashed by identity, whose lossfn never changes), so the design loop compiles it once
#   for all iterations and its value matches the eager value_and_grad of the loss; constraint_fn runs
#   eagerly and closes over max_vol_frac without jit.
# gap: static-hashability
# added/changed: the notebook's git-clone cell, matplotlib plotting (FEA.plot_displacement and the
#   plotting in optimize) and the module docstrings are dropped; Optimizer.optimize's MMA loop needs
#   the repository's mma.py (~400 lines), so it is trimmed and the __main__ block runs the same two
#   calls per iteration (objective_fn, constraint_fn) with a projected gradient step in place of
#   mma.update_mma; the mesh is 12x6 instead of 40x20.
from typing import Tuple
import dataclasses
from enum import Enum, auto
import functools
import jax
import numpy as np
import jax.numpy as jnp
from jax import value_and_grad


@dataclasses.dataclass
class Extent:
  min: float
  max: float


  @property
  def range(self)->float:
    return self.max - self.min


  @property
  def center(self)->float:
    return 0.5*(self.min + self.max)


  def scale(
      self,
      scale_val:float
  ) -> 'Extent':
    """Scale the `Extent`."""
    return Extent(self.min*scale_val, self.max*scale_val)


  def translate(
      self,
      dx:float,
  ) -> 'Extent':
    """Translate the `Extent` by `dx`."""
    return Extent(self.min + dx, self.max + dx)


_Ext = Extent

@dataclasses.dataclass
class BoundingBox:
  x: _Ext
  y: _Ext


class GridMesher:
  """
  Attributes:
    num_dim: number of dimensions of the mesh. Currently only handles 2D
    nelx: number of elements along X axis
    nely: number of elements along Y axis
    num_elems: number of elements in the mesh
    bounding_box: Contains the max and min coordinates of the mesh
    lx: length of domain along X axis
    ly: length of domain along Y axis
    elem_size: Array which contains the size of the element along X and Y axis
    elem_area: Area of each element
    domain_volume: Area of the rectangular domain
    num_nodes: number of nodes in the mesh. Assume a bilinear quad element
    elem_centers: Array of size (num_elems, 2) which are the coordinates of the
      centers of the element
  """

  @property
  def num_dim(self)->int:
    return 2
  

  def __init__(self, nelx:int, nely:int, bounding_box: BoundingBox):
    self.nelx, self.nely = nelx, nely
    self.num_elems = nelx*nely
    self.bounding_box = bounding_box
    self.lx = np.abs(self.bounding_box.x.range)
    self.ly = np.abs(self.bounding_box.y.range)
    dx, dy = self.lx/nelx, self.ly/nely
    self.elem_size = np.array([dx, dy])
    self.elem_area = dx*dy*np.ones((self.num_elems,))
    self.domain_volume = np.sum(self.elem_area)
    self.num_nodes = (nelx+1)*(nely+1)

    [x_grid, y_grid] = np.meshgrid(
               np.linspace(dx/2., self.lx-dx/2., nelx),
               np.linspace(dy/2., self.ly-dy/2., nely))
    [x_grid, y_grid] = np.meshgrid(
               np.linspace(self.bounding_box.x.min + dx/2., 
                           self.bounding_box.x.max-dx/2., 
                           nelx),
               np.linspace(self.bounding_box.y.min + dy/2.,
                           self.bounding_box.y.max-dy/2.,
                           nely))
    self.elem_centers = np.stack((x_grid, y_grid)).T.reshape(-1, self.num_dim)



class BilinearStructMesher(GridMesher):
  """Bilinear structured grid mesher for structural elasticity."""

  @property
  def nodes_per_elem(self)->int:
    return 4


  @property
  def dofs_per_node(self)->int:
    return 2


  def __init__(self, nelx:int, nely:int, bounding_box: BoundingBox):
    super().__init__(nelx, nely, bounding_box)
    self.num_nodes = (self.nelx + 1)*(self.nely + 1)
    self.dofs_per_elem = self.dofs_per_node*self.nodes_per_elem
    self.num_dofs = self.dofs_per_node*self.num_nodes
    (self.elem_node, self.edofMat,
      self.iK, self.jK) = self.compute_connectivity_info()


  def compute_connectivity_info(self)-> Tuple[np.ndarray, np.ndarray,
                                              np.ndarray, np.ndarray]:
    """Computes global and local mesh numbering.

    Returns:
      elem_node: Array of (nodes_per_elem, num_elems) that contain the global
        node numbers of the elements.
      edofMat: Array of (num_elems, dofs_per_elem) that contain the global
        dof numbers of the elements.
      iK: Array (num_elems * dofs_per_elem * dofs_per_elem) that contains the 
        global node number indices (row positions) corresponding to each 
        element's degrees of freedom within the assembled stiffness matrix.
      jK: Array (num_elems * dofs_per_elem * dofs_per_elem) that contains the 
        global node number indices (column positions) corresponding to each
        element's degrees of freedom within the assembled stiffness matrix.
    """
    elem_node = np.zeros((self.nodes_per_elem, self.num_elems))
    for elx in range(self.nelx):
      for ely in range(self.nely):
        el = ely+elx*self.nely
        n1=(self.nely+1)*elx+ely
        n2=(self.nely+1)*(elx+1)+ely
        elem_node[:,el] = np.array([n1+1, n2+1, n2, n1])
    elem_node = elem_node.astype(int)

    edofMat = np.zeros((self.num_elems,
        self.nodes_per_elem*self.num_dim), dtype=int)

    for elem in range(self.num_elems):
      enodes = elem_node[:, elem]
      edofs = np.stack((2*enodes, 2*enodes+1), axis=1).reshape(
                                            (1, self.dofs_per_elem))
      edofMat[elem, :] = edofs

    matrx_size = self.num_elems*self.dofs_per_elem**2
    iK = tuple(np.kron(edofMat, np.ones((self.dofs_per_elem, 1),dtype=int)).T
                .reshape(matrx_size, order ='F'))
    jK = tuple(np.kron(edofMat, np.ones((1, self.dofs_per_elem),dtype=int)).T
                .reshape(matrx_size, order ='F'))
    return elem_node, edofMat, iK, jK

class StructuralMaterial:
  def __init__(self, youngs_modulus: float, poisson_ratio: float,
               mass_density: float):
    self.youngs_modulus, self.poisson_ratio = youngs_modulus, poisson_ratio
    self.mass_density = mass_density
  
  def compute_SIMP_material_modulus(self, density: jnp.ndarray,
                                    penal: float = 3.,
                                    young_min: float = 1e-3)->jnp.ndarray:
    """
      E = rho_min + E0*( density)^penal
    Args:
      density: Array of size (num_elems,) with values in range [0,1]
      penal: SIMP penalization constant, usually assumes a value of 3
      young_min: Small value added to the modulus to prevent matrix singularity
    Returns: Array of size (num_elems,) which contain the penalized modulus
      at each element
    """
    return young_min + self.youngs_modulus*(density**penal)

_BilinMesh = BilinearStructMesher


@dataclasses.dataclass
class BC:
  """
  Attributes:
    force: Array of size (num_dofs, 1) that contain the imposed load on each dof.
    fixed_dofs: Array of size (num_fixed_dofs,) that contain all the dof numbers
      that are fixed.
  """
  force: jnp.ndarray
  fixed_dofs: np.ndarray

  @property
  def num_dofs(self):
    return self.force.shape[0]

  @property
  def free_dofs(self):
    return np.setdiff1d(np.arange(self.num_dofs), self.fixed_dofs)


class SturctBCs(Enum):
  MID_CANT_BEAM = auto()
  TIP_CANT_BEAM = auto()
  MBB_BEAM = auto()

def get_sample_struct_bc(mesh:_BilinMesh, sample:SturctBCs)->BC:
  """Get precoded sample structural boundary conditions."""

  force = np.zeros((mesh.num_dofs, 1))
  dofs=np.arange(mesh.num_dofs)

  if(sample == SturctBCs.MID_CANT_BEAM):
    fixed = dofs[0:2*(mesh.nely+1):1]
    force[mesh.num_dofs - 1*(mesh.nely+1), 0] = -1.

  elif(sample == SturctBCs.TIP_CANT_BEAM):
    fixed = dofs[0:2*(mesh.nely+1):1]
    force[mesh.num_dofs - 2*(mesh.nely+1), 0] = -1.

  elif(sample == SturctBCs.MBB_BEAM):

    fixed= np.union1d(np.arange(0,2*(mesh.nely+1),2),
                      mesh.num_dofs-2*(mesh.nely+1)+1)
    force[2*(mesh.nely+1)+1, 0]= -1.

  return BC(force=force, fixed_dofs=fixed)

_BilinMesh = BilinearStructMesher


class FEA:
  def __init__(self,
               mesh: _BilinMesh,
               material: StructuralMaterial,
               bc: BC):
    self.mesh, self.material, self.bc = mesh, material, bc
    self.D0 = self.FE_compute_element_stiffness()


  def FE_compute_element_stiffness(self) -> np.ndarray:
    E = 1.
    nu = self.material.poisson_ratio
    k = np.array([1/2-nu/6, 1/8+nu/8, -1/4-nu/12, -1/8+3*nu/8,\
                -1/4+nu/12, -1/8-nu/8, nu/6, 1/8-3*nu/8])
    D0 = E/(1-nu**2)*np.array([\
    [k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]],
    [k[1], k[0], k[7], k[6], k[5], k[4], k[3], k[2]],
    [k[2], k[7], k[0], k[5], k[6], k[3], k[4], k[1]],
    [k[3], k[6], k[5], k[0], k[7], k[2], k[1], k[4]],
    [k[4], k[5], k[6], k[7], k[0], k[1], k[2], k[3]],
    [k[5], k[4], k[3], k[2], k[1], k[0], k[7], k[6]],
    [k[6], k[3], k[4], k[1], k[2], k[7], k[0], k[5]],
    [k[7], k[2], k[1], k[4], k[3], k[6], k[5], k[0]] ]).T
    return D0


  def compute_elem_stiffness_matrix(self,
                                    youngs_modulus: jnp.ndarray)->jnp.ndarray:
    """
    Args:
      youngs_modulus: Array of size (num_elems,) which contain the modulus
        of each element
    Returns: Array of size (num_elems, 8, 8) which is the structual
      stiffness matrix of each of the bilinear quad elements. Each element has
      8 dofs corresponding to the x and y displacements of the 4 noded quad
      element.
    """
    # e - element, i - elem_nodes j - elem_nodes
    return jnp.einsum('e, ij->ije', youngs_modulus, self.D0)


  def assemble_stiffness_matrix(self, elem_stiff_mtrx: jnp.ndarray):
    """
    Args:
      elem_stiff_mtrx: Array of size (num_elems, 8, 8) which is the structual
        stiffness matrix of each of the bilinear quad elements. Each element has
        8 dofs corresponding to the x and y displacements of the 4 noded quad
        element.
    Returns: Array of size (num_dofs, num_dofs) which is the assembled global
      stiffness matrix.
    """
    glob_stiff_mtrx = jnp.zeros((self.mesh.num_dofs, self.mesh.num_dofs))
    glob_stiff_mtrx = glob_stiff_mtrx.at[(self.mesh.iK, self.mesh.jK)].add(
                                      elem_stiff_mtrx.flatten('F'))
    return glob_stiff_mtrx


  def solve(self, glob_stiff_mtrx):
    """Solve the system of Finite element equations.
    Args:
      glob_stiff_mtrx: Array of size (num_dofs, num_dofs) which is the assembled
        global stiffness matrix.
    Returns: Array of size (num_dofs,) which is the displacement of the nodes.
    """
    k_free = glob_stiff_mtrx[self.bc.free_dofs,:][:,self.bc.free_dofs]

    u_free = jax.scipy.linalg.solve(
          k_free,
          self.bc.force[self.bc.free_dofs],
          assume_a = 'pos', check_finite=False)
    u = jnp.zeros((self.mesh.num_dofs))
    u = u.at[self.bc.free_dofs].add(u_free.reshape(-1))
    return u


  def compute_compliance(self, u:jnp.ndarray)->jnp.ndarray:
    """Objective measure for structural performance.
    Args:
      u: Array of size (num_dofs,) which is the displacement of the nodes
        of the mesh.
    Returns: Structural compliance, which is a measure of performance. Lower
      compliance means stiffer and stronger design.
    """
    return jnp.dot(u, self.bc.force.flatten())


  def loss_function(self, density:jnp.ndarray)->float:
    """Wrapper function that takes in density field and returns compliance.
    Args:
      density: Array of size (num_elems,) that contain the density of each
        of the elements for FEA.
    Returns: Structural compliance, which is a measure of performance. Lower
      compliance means stiffer and stronger design.
    """
    youngs_modulus = self.material.compute_SIMP_material_modulus(density)
    elem_stiffness_mtrx = self.compute_elem_stiffness_matrix(youngs_modulus)
    glob_stiff_mtrx = self.assemble_stiffness_matrix(elem_stiffness_mtrx)
    u = self.solve(glob_stiff_mtrx)
    return self.compute_compliance(u)



bounding_box = BoundingBox(x=_Ext(0., 60.),
                                  y= _Ext(0., 30.))
nelx, nely = 12, 6 # number of elems along X and Y axis
mesh = BilinearStructMesher(nelx = nelx,
                                   nely = nely,
                                   bounding_box = bounding_box)

max_vol_frac = 0.5
init_design = max_vol_frac * np.ones((mesh.num_elems, 1))

material = StructuralMaterial(youngs_modulus=1.,
                              poisson_ratio=0.3,
                              mass_density=1.)

bc = get_sample_struct_bc(mesh, SturctBCs.MID_CANT_BEAM)

fe_solver = FEA(mesh, material, bc)
lossfn = fe_solver.loss_function  # takes in density of shape (num_elems,)


class Optimizer:
  def __init__(self, lossfn, mesh):
    self.lossfn, self.mesh = lossfn, mesh


  def constraint_fn(self,
                    density: jnp.ndarray,
                    max_vol_frac: float
                    ) -> Tuple[jnp.ndarray, jnp.ndarray]:

    def volume_constraint(density:jnp.ndarray)-> float:
      occupied_volume = jnp.einsum('i,i->i',self.mesh.elem_area, density).sum()
      volcons =  occupied_volume/(max_vol_frac*self.mesh.domain_volume) - 1.
      return volcons
    vc, dvc = value_and_grad(volume_constraint)(density.reshape((-1)))

    return jnp.array([vc]).reshape((-1,1)), dvc.reshape((1,-1))


  @functools.partial(jax.jit, static_argnums=(0,))
  def objective_fn(self,
                   density: jnp.ndarray
                   )-> Tuple[jnp.ndarray, jnp.ndarray]:
    obj, grad_obj = value_and_grad(self.lossfn)(density.reshape((-1)))
    return jnp.array([obj]), grad_obj.reshape((-1, 1))


if __name__ == "__main__":
  compiles = []
  jax.monitoring.register_event_duration_secs_listener(
      lambda event, _secs, **kw: compiles.append(str(kw.get("fun_name")))
      if event == "/jax/core/compile/backend_compile_duration" else None
  )
  optim = Optimizer(lossfn, mesh)
  x = init_design
  for epoch in range(5):
    objective, grad_obj = optim.objective_fn(x)
    constr, grad_cons = optim.constraint_fn(x, max_vol_frac)
    # stand-in for mma.update_mma: a projected gradient step
    x = np.clip(np.asarray(x) - 0.05 * np.asarray(grad_obj) / np.abs(grad_obj).max()
                - 0.05 * float(constr[0, 0] > 0) * np.asarray(grad_cons).T, 0., 1.)
    print(f'epoch {epoch:d} obj {objective[0]:.2E} vol cons {constr[0,0]:.2E} ')
    eager_obj, eager_grad = value_and_grad(lossfn)(jnp.asarray(x).reshape((-1)))
  objective, grad_obj = optim.objective_fn(x)
  assert np.allclose(objective[0], eager_obj, rtol=1e-3)  # float32 solves
  assert np.allclose(grad_obj.reshape(-1), eager_grad, rtol=1e-2, atol=1e-3 * float(np.abs(eager_grad).max()))
  assert sum('objective_fn' in name for name in compiles) == 1, compiles
