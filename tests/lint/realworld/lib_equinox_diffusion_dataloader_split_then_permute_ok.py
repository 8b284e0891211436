# source: https://github.com/patrick-kidger/equinox/blob/e9067186d5eb56b89503ace4a13664e1de556bfa/examples/score_based_diffusion.ipynb
#   (the `dataloader` of the score-based diffusion example after commit e906718,
#   "Fix bad-practice key re-use")
# observed on jax 0.10.2 CPU: each epoch splits `key` first and draws the permutation from
#   the fresh `subkey`; with a typed key under `jax.debug_key_reuse(True)` several epochs
#   run without KeyReuseError, and consecutive epochs give different permutations. The
#   MNIST data is replaced by a small random array (the example downloads it); the
#   `__main__` block is added.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jr


def dataloader(data, batch_size, *, key):
    dataset_size = data.shape[0]
    indices = jnp.arange(dataset_size)
    while True:
        key, subkey = jr.split(key, 2)
        perm = jr.permutation(subkey, indices)
        start = 0
        end = batch_size
        while end < dataset_size:
            batch_perm = perm[start:end]
            yield data[batch_perm]
            start = end
            end = start + batch_size


if __name__ == "__main__":
    data = jnp.arange(64.0).reshape(64, 1, 1, 1)
    with jax.debug_key_reuse(True):
        loader = dataloader(data, 16, key=jr.key(5678))
        batches = [next(loader) for _ in range(9)]  # three epochs of three batches
    assert not (batches[0] == batches[3]).all()
