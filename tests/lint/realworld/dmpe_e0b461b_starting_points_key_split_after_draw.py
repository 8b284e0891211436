# source: https://github.com/ExcitingSystems/DMPE/blob/e0b461b1d85ed9f3383c2a406dbcd86dfd22eacd/exciting_exciting_systems/algorithms/algorithms.py
#   (precompute_starting_points, which excite_and_fit calls on every time step to draw the
#   training-batch starting points and the loader key for the next step)
# observed on jax 0.10.2 CPU (equinox 0.13.8): loader_key is consumed by jax.random.uniform
#   and then split again for the key that the next call draws from. With the default
#   partitionable threefry, split(key, 1)[0] is the counter block that uniform's first
#   element was made from: the first uniform bits equal the XOR of the two words of the
#   returned key, so each step's first starting point is a function of the next step's key.
#   Added: the driver loop (the two lines of excite_and_fit that call it, with made-up
#   sizes) and the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
import equinox as eqx
import numpy as np


@eqx.filter_jit
def precompute_starting_points(
        n_train_steps,
        k,
        sequence_length,
        training_batch_size,
        loader_key
):
    index_normalized = jax.random.uniform(loader_key, shape=(n_train_steps, training_batch_size)) * (k + 1 - sequence_length)
    starting_points = index_normalized.astype(jnp.int32)
    (loader_key,) = jax.random.split(loader_key, 1)  # expect: JIT502

    return starting_points, loader_key


n_train_steps, sequence_length, training_batch_size = 4, 10, 8
loader_key = jax.random.PRNGKey(0)
history = []
for k in range(20, 23):
    key_used = loader_key
    starting_points, loader_key = precompute_starting_points(
        n_train_steps, jnp.array([k]), sequence_length, training_batch_size, loader_key
    )
    history.append((k, key_used, starting_points, loader_key))


if __name__ == "__main__":
    for k, key_used, starting_points, next_key in history:
        # the bits behind uniform's first element, drawn from key_used ...
        first_bits = np.asarray(jax.random.bits(key_used, (1,)))[0]
        words = np.asarray(next_key, dtype=np.uint32)
        # ... are the XOR of the two words of the key handed to the next step
        assert first_bits == (words[0] ^ words[1])
        u = np.array((first_bits >> np.uint32(9)) | np.uint32(0x3F800000), dtype=np.uint32).view(np.float32) - 1.0
        assert int(starting_points[0, 0]) == int(np.float32(u) * np.float32(k + 1 - sequence_length))
    # observed: line 28 splits loader_key after uniform consumed it: the returned key is
    #   the counter block of the first draw, so the draw is a function of the next key
