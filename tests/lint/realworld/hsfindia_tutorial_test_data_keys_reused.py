# source: https://github.com/gordonwatts/hsf-india-ml-tutorial-2025-09/blob/95e5ed1e85e7cde35625d8a9294c7cdb396f7a32/00-Intro.ipynb
#   (an ML tutorial of an HSF India school, "Straight Lines & JAX": cells 1, 3 and 59, the
#   training data and the "independent" test data of the over-fitting section)
# observed on jax 0.10.2 CPU: the test set of cell 59 is drawn from keys the notebook has
#   already consumed: `new_key` drew the training jitter in cell 3 and is then split for
#   new_key2, and new_key2 is split for new_key3 and then draws jitter2 itself. With raw
#   `PRNGKey`s nothing raises; replaying the same key data as typed keys under
#   jax.debug_key_reuse(True) raises KeyReuseError at both reuses. matplotlib is not
#   imported (the plotting cells are left out). Added: the __main__ block.
# gap: other
import jax # Access to the library
import jax.numpy as jnp # Easy access to numpy like functions in jax

# random number tracking in JAX
rng = jax.random.PRNGKey(0)
rng, new_key = jax.random.split(rng)

slope = 3
intercept = 2

# Straight line with jitter
n_items = 100
x = jax.random.normal(rng, (n_items,))
jitter = jax.random.normal(new_key, (n_items,))
y = slope * x + intercept + 0.5 * jitter

new_key2, _ = jax.random.split(new_key)  # expect: JIT502
new_key3, _ = jax.random.split(new_key2)

x2 = jax.random.normal(new_key3, (1000,))
jitter2 = jax.random.normal(new_key2, (1000,))  # expect: JIT502
y2 = slope * x2 + intercept + 0.5 * jitter2

x_test = x2.reshape(-1, 1)
y_test = y2.reshape(-1, 1)


if __name__ == "__main__":
    def raises_key_reuse(call):
        with jax.debug_key_reuse(True):
            try:
                call()
            except jax.errors.KeyReuseError:
                return True
        return False

    typed = lambda k: jax.random.wrap_key_data(k)

    def replay_cell_59_split():
        k = typed(new_key)
        jax.random.normal(k, (n_items,))  # cell 3's jitter
        jax.random.split(k)  # tolerate: JIT502

    def replay_cell_59_jitter2():
        k2 = typed(new_key2)
        jax.random.split(k2)
        jax.random.normal(k2, (1000,))  # tolerate: JIT502

    # observed: line 27 splits new_key, which already drew the jitter of cell 3: KeyReuseError
    assert raises_key_reuse(replay_cell_59_split)
    # observed: line 31 draws jitter2 from new_key2 after splitting it for new_key3: KeyReuseError
    assert raises_key_reuse(replay_cell_59_jitter2)
    assert x_test.shape == (1000, 1) and y_test.shape == (1000, 1)
