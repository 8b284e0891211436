# source: https://github.com/patrick-kidger/equinox/blob/62c8aefd09aaf25ea3ecd17b71ef40694cd6c8e6/examples/score_based_diffusion.ipynb
#   (the `dataloader` of the score-based diffusion example before commit e906718,
#   "Fix bad-practice key re-use")
# observed on jax 0.10.2 CPU: each epoch draws the permutation from `key` and then splits
#   that same consumed key to get the next epoch's key. With a typed key (`jr.key`) and
#   `jax.debug_key_reuse(True)`, the first `next()` raises KeyReuseError ("Previously-consumed
#   key passed to random_split") at the split. With the example's raw `jr.PRNGKey` nothing
#   raises, but `jr.split(key, 1)[0]` is `jr.split(key)[0]`, the key `jr.permutation` itself
#   carries into its second shuffling round, so the next epoch's shuffle reuses randomness of
#   this one. The MNIST data is replaced by a small random array (the example downloads it);
#   the `__main__` block is added.
# gap: other
import jax
import jax.numpy as jnp
import jax.random as jr


def dataloader(data, batch_size, *, key):
    dataset_size = data.shape[0]
    indices = jnp.arange(dataset_size)
    while True:
        perm = jr.permutation(key, indices)
        (key,) = jr.split(key, 1)  # expect: JIT502
        start = 0
        end = batch_size
        while end < dataset_size:
            batch_perm = perm[start:end]
            yield data[batch_perm]
            start = end
            end = start + batch_size


if __name__ == "__main__":
    import traceback

    data = jr.normal(jr.PRNGKey(0), (64, 1, 4, 4))
    loader_key = jr.PRNGKey(5678)
    # the raw key the example passes: the next epoch's key is the permutation's own
    assert (jr.split(loader_key, 1)[0] == jr.split(loader_key)[0]).all()  # tolerate: JIT502

    error_line = None
    with jax.debug_key_reuse(True):
        try:
            next(dataloader(data, 16, key=jr.key(5678)))
        except jax.errors.KeyReuseError:
            frames = [f for f in traceback.extract_tb(__import__("sys").exc_info()[2])
                      if f.filename == __file__]
            error_line = frames[-1].lineno
    # observed: line 23 splits the key the permutation above it already consumed (KeyReuseError)
    assert error_line == 23, error_line
