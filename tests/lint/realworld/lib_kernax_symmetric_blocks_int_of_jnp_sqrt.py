# source: https://github.com/SimLej18/kernax-ml/blob/6a93129d253785b0d9d678325409bf2a4ddb48ff/kernax/WrapperKernels.py
#   (a JAX Gaussian-process kernel library: the jitted helper that rebuilds a block covariance
#   matrix from its upper-triangle blocks; the commit before had `np.sqrt` with no numpy
#   import, "[fix] np import bug" made it `jnp.sqrt`, and the next commit, "[fix] fixed
#   jitting error in WrapperKernels.py", moved the helper into BlockKernel and took the
#   number of blocks from a static field instead)
# observed on jax 0.10.2 CPU: calling symmetric_blocks_to_matrix on a (3, 2, 2) stack of
#   blocks raises ConcretizationTypeError at the `int(...)` line: `t` is a Python int from
#   the shape, but jnp.sqrt returns a tracer under jit, so int() cannot concretize it.
# gap: omnistaging
# added: the `__main__` block with a (3, 2, 2) input; the file's other imports and classes
#   (kernax kernels) are left out, the function is as in the file.
import jax.numpy as jnp
from jax import jit


@jit
def symmetric_blocks_to_matrix(flat_blocks):
	"""
	Rebuilds a symmetric matrix from its unique blocks (upper triangle).

	Args:
		flat_blocks: Tensor (T, H, W) where T is a triangular number.
					 Expected order: (0,0), (0,1), (0,2)... (row-major upper)
	"""
	# 1. Déduire le nombre de blocs (B) à partir de T
	# Formule inverse de T = B(B+1)/2  =>  B^2 + B - 2T = 0
	t, h, w = flat_blocks.shape
	n_blocks = int((jnp.sqrt(8 * t + 1) - 1) / 2)  # expect: JIT401

	# 2. Créer la grille de blocs vide (B, B, H, W)
	grid = jnp.zeros((n_blocks, n_blocks, h, w), dtype=flat_blocks.dtype)

	# 3. Récupérer les indices du triangle supérieur
	# ex: rows=[0,0,1], cols=[0,1,1] pour B=2
	rows, cols = jnp.triu_indices(n_blocks)

	# 4. Remplir le triangle supérieur
	grid = grid.at[rows, cols].set(flat_blocks)

	# 5. Remplir le triangle inférieur par symétrie
	# On prend le bloc en (rows, cols), on le transpose (swapaxes -1, -2)
	# et on le place en (cols, rows).
	# Note : Sur la diagonale (rows==cols), cela transpose le bloc sur lui-même,
	# ce qui est correct car un bloc diagonal d'une matrice symétrique est lui-même symétrique.
	grid = grid.at[cols, rows].set(grid[rows, cols].swapaxes(-1, -2))

	# 6. Assemblage final (Même logique que précédemment)
	return (grid
			.swapaxes(1, 2)        # (RowBlock, H, ColBlock, W)
			.reshape(n_blocks * h, n_blocks * w))


if __name__ == "__main__":
	blocks = jnp.arange(12.0).reshape(3, 2, 2)
	print(symmetric_blocks_to_matrix(blocks))
