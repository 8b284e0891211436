# source: https://github.com/jax-ml/jax/issues/275
# observed on jax 0.10.2 CPU: runs clean: indexing a vector with its own argsort inside
#   `jax.vmap` (the reporter's TypeError came from a 2019 branch without a batching rule
#   for gather) works, and so does the same under jit. `np` is jax.numpy, as the reporter
#   imported it. Added: the imports, and jit in the __main__ block.
# gap: types
import jax
import jax.numpy as np


def f(vector):
    inds = np.argsort(vector)
    result = vector[inds]
    return result

def g(vector):
    inds = np.zeros(vector.shape[0], dtype=int)
    result = vector[inds]
    return result

batch_size = 10
length = 3

g(np.ones(length)) # works
f(np.ones(length)) # works

jax.vmap(g)(np.ones((batch_size, length))) # works
jax.vmap(f)(np.ones((batch_size, length))) # TypeError: reshape total size must be unchanged, got new_sizes (1,) for shape (3,).


if __name__ == "__main__":
    x = np.array([[3.0, 1.0, 2.0], [0.0, 2.0, 1.0]])
    out = jax.jit(jax.vmap(f))(x)
    assert (out == np.sort(x, axis=1)).all()
    assert (jax.jit(jax.vmap(g))(x) == x[:, :1]).all()
