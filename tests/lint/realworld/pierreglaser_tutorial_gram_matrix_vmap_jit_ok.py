# source: https://github.com/pierreglaser/jax-tutorial/blob/071c923c082e8dbd7aea54b220052283dc3dbe9d/tutorial_with_solutions.ipynb
#   (a JAX tutorial notebook with its solutions: a Gaussian kernel, jit, grad and vmap,
#   and a kernel Gram matrix computed three ways; code cells 5 to 44 in order, marked by
#   their cell numbers, without the %timeit cells)
# observed on jax 0.10.2 CPU: jit(gaussian_kernel) and jit(vmap(grad(gaussian_kernel),
#   in_axes=(0, None))) trace the kernel once per shape; the NumPy loop fills its Gram
#   matrix outside any transform (gaussian_kernel runs eagerly there), and the nested vmap
#   gives the same matrix as the broadcast version. Added: the __main__ block.
# gap: exemption-vs-JAX
# ---- cell 5
import numpy as np

import jax
import jax.numpy as jnp
from jax import jit, grad, vmap

# ---- cell 7
def gaussian_kernel(x, y):
    sigma = 2
    z = x - y
    return jnp.exp(-jnp.sum(jnp.square(z)) / sigma ** 2)

# ---- cell 9
x_input = jnp.ones((2,))  # [0., 0.]
y_input = jnp.zeros((2,))  # [1., 1.]
retval = gaussian_kernel(x_input, y_input)
retval

# ---- cell 13
# just-in-time compilation
jitted_gaussian_kernel = jit(gaussian_kernel)
assert gaussian_kernel(x_input, y_input) == gaussian_kernel(x_input, y_input)

# ---- cell 19
# automatic differentiation
d_dx_gaussian_kernel=grad(gaussian_kernel, argnums=0)  # compute the partial derivative of gaussian_kernel w.r.t x
d_dx_gaussian_kernel(x_input, y_input)  # returns a 2-d vector

# ---- cell 21
vmapped_gaussian_kernel = vmap(gaussian_kernel, in_axes=(0, None))

# ---- cell 22
batch_of_x_inputs = jnp.stack((jnp.zeros((2,)), jnp.ones((2,))))
vmapped_gaussian_kernel(batch_of_x_inputs, y_input)

# ---- cell 24
jit(vmap(grad(gaussian_kernel), in_axes=(0, None)))(batch_of_x_inputs, y_input)

# ---- cell 28
import numpy as np
random_state = np.random.RandomState(42)
X = random_state.randn(100, 2)
Y = random_state.randn(200, 2)

# ---- cell 31
def compute_gram_matrix_naively(X, Y):
    gram_matrix = np.empty((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            kij = gaussian_kernel(X[i], Y[j])  # note the interoperability between jax and numpy arrays within **untransformed** jax funtions
            gram_matrix[i, j] = kij
    return gram_matrix

# ---- cell 32
M_naive = compute_gram_matrix_naively(X, Y)

# ---- cell 34
def gaussian_kernel_explicit_reduction_axes(x, y):
    sigma = 2
    z = x - y
    # we add a axis=-1 to prevent numpy from summing over all axes when giving gaussian_kernel a stack of tensors.
    # return jnp.exp(-jnp.sum(jnp.square(z)) / sigma ** 2)
    return jnp.exp(-jnp.sum(jnp.square(z), axis=-1) / sigma ** 2)

# ---- cell 35
def compute_gram_matrix_bcast_semantics(X, Y):
    return gaussian_kernel_explicit_reduction_axes(X[:, None, :], Y[None, :, :])

# ---- cell 36
M_bcast = compute_gram_matrix_bcast_semantics(X, Y)
assert np.allclose(M_naive, M_bcast)

# ---- cell 42
# Exercise: combine of vmap and gaussian_kernel within compute_gram_matrix_using_vmap to compute the gram matrix between X and Y
def compute_gram_matrix_using_vmap(X, Y):
    # raise NotImplemented
    return vmap(vmap(gaussian_kernel, in_axes=(None, 0)), in_axes=(0, None))(X, Y)

# ---- cell 43
M_vmap = compute_gram_matrix_using_vmap(X, Y)
assert np.allclose(M_vmap, M_bcast)

# ---- cell 44
jitted_gaussian_kernel = jit(gaussian_kernel)
_ = jitted_gaussian_kernel(jnp.ones((2,)), jnp.zeros((2,))).block_until_ready()


if __name__ == "__main__":
    assert jnp.allclose(jitted_gaussian_kernel(x_input, y_input), retval)
    g = jit(vmap(grad(gaussian_kernel), in_axes=(0, None)))(batch_of_x_inputs, y_input)
    assert jnp.allclose(g[1], d_dx_gaussian_kernel(jnp.ones((2,)), y_input))
    assert np.allclose(M_vmap, M_naive, atol=1e-6)
