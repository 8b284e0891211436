# source: https://github.com/ShawonAshraf/jax_examples/blob/6e9d537a533b7cda6cd1b84b736c3c554244a38b/05_jit.ipynb
#   (a learner's notebook series on JAX, the jit notebook: cells 2, 3, 19, 23 and 24; the
#   %timeit cells and the side-effect cell left out, and cell 21, which raised in the
#   notebook, made in the __main__ block, where its error is caught)
# observed on jax 0.10.2 CPU: jit(multinomial_sample)(subkey, x, 50) raises TypeError
#   ("Shapes must be 1D sequences of concrete values of integer type") at
#   random.categorical: n_samples is traced. The notebook draws x from `key` and then
#   splits that same `key` (a typed key: under jax.debug_key_reuse(True) the split raises
#   KeyReuseError), and it draws every sample set from the one `subkey`: the jitted
#   static-argnums call of cell 23 returns exactly the 50 samples of cell 19, and the 150
#   samples of cell 24 start with those same 50. Added: the __main__ block.
# gap: other
import jax as J
from jax import jit, random
import jax.numpy as jnp

key = random.key(123)

x = random.normal(key, shape=(9, ))
x

def multinomial_sample(rng_key, logits, n_samples):
    return random.categorical(rng_key, logits, shape=[n_samples, ])  # expect: JIT404

key, subkey = random.split(key)  # expect: JIT502
multinomial_sample(subkey, x, 50)

jit(multinomial_sample, static_argnums=2)(subkey, x, 50)  # expect: JIT502

jit(multinomial_sample, static_argnums=2)(subkey, x, 150)  # expect: JIT502


if __name__ == "__main__":
    import traceback

    # observed: line 23 raises TypeError when n_samples is traced (cell 21 of the notebook)
    try:
        jit(multinomial_sample)(subkey, x, 50)  # tolerate: JIT502
    except TypeError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        assert frames[-1].lineno == 23, frames
    else:
        raise AssertionError("no error")

    # observed: line 25 splits the key that drew x: KeyReuseError when replayed under the checker
    with J.debug_key_reuse(True):
        k = random.key(123)
        random.normal(k, shape=(9, ))
        try:
            random.split(k)  # tolerate: JIT502
            raise AssertionError("no KeyReuseError")
        except J.errors.KeyReuseError:
            pass

    eager = multinomial_sample(subkey, x, 50)  # tolerate: JIT502
    # observed: line 28 draws from subkey again: the same 50 samples as cell 19
    assert (jit(multinomial_sample, static_argnums=2)(subkey, x, 50) == eager).all()  # tolerate: JIT502
    # observed: line 30 draws 150 "new" samples from subkey: the first 50 are cell 19's
    assert (jit(multinomial_sample, static_argnums=2)(subkey, x, 150)[:50] == eager).all()  # tolerate: JIT502
