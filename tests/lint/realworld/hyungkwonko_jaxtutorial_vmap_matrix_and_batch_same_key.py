# source: https://github.com/hyungkwonko/jax-tutorial/blob/af76ab7994e2c7d1d53e21363a43b12fe2ef3e80/e4_vmap.py
# observed on jax 0.10.2 CPU: MAT and BATCHED_X are both drawn from KEY, so the ten "batched"
#   input vectors are the first ten rows of the matrix they are multiplied by
#   (BATCHED_X == MAT[:10]). Kept: the file as written (tabs as in the source); N 100 -> 3,
#   and the checks at the end of the __main__ block are added.
# gap: other
import jax.numpy as jnp
from jax import jit, vmap, random
from timeit import timeit

N = [3]
KEY = random.PRNGKey(0)
MAT = random.normal(KEY, (150, 100))
BATCHED_X = random.normal(KEY, (10, 100))  # expect: JIT502

def apply_matrix(v, mat=MAT):
	return jnp.dot(mat, v)

def naively_batched_apply_matrix(batched_x=BATCHED_X):
	return jnp.stack([apply_matrix(v) for v in batched_x])

@jit
def vmap_batched_apply_matrix(batched_x=BATCHED_X):
	return vmap(apply_matrix)(batched_x)  # do not need to care about batch dim


if __name__ == '__main__':
	for n in N:
		print(f"Naively batched... time taken for {n} times: {timeit(naively_batched_apply_matrix, number=n)} sec...")
		print(f"Auto-vectorized with vmap... time taken for {n} times: {timeit(vmap_batched_apply_matrix, number=n)} sec...")
	# observed: line 14 draws the batch from the matrix's key: BATCHED_X == MAT[:10]
	assert jnp.allclose(BATCHED_X, MAT[:10])
	assert jnp.allclose(vmap_batched_apply_matrix(), naively_batched_apply_matrix(), atol=1e-4)
