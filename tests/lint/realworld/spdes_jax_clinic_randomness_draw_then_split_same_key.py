# source: https://github.com/spdes/computational-sde-intro-lecture/blob/daf142b23eb16c3195d5b6c1e7e7800c67fc4e43/lectures/seminar_lectures/zhao_jax_workshop/3-jax_clinic_randomness.ipynb
#   (a JAX workshop's notebook, "Generate random numbers": its first code cell, "The
#   equivalence to the Numpy code", and the exercise's solution cell)
# observed on jax 0.10.2 CPU: each key is drawn from and then split: samples1 comes from
#   `key`, and `key` is then split to make the key of samples2, and so on. JAX's
#   key-reuse checker (jax_debug_key_reuse), given the same calls on a typed key, raises
#   KeyReuseError at the split of a key a sampler already consumed; the legacy uint32
#   keys the notebook makes are not tracked by the checker, so the reuse passes silently.
#   The notebook's advice is to ignore the second half of the split ("you can just ignore
#   `subkey`"), which is the key it should have drawn from. Added: the __main__ block.
# gap: other
# The equivalence to the Numpy code

import jax

key = jax.random.PRNGKey(999)
samples1 = jax.random.normal(key, shape=(5, ))

key, _ = jax.random.split(key)  # expect: JIT502
samples2 = jax.random.uniform(key, shape=(5, ))

key, _ = jax.random.split(key)  # expect: JIT502
samples3 = jax.random.gamma(key, shape=(5, ), a=1.)

import jax.numpy as jnp

key = jax.random.PRNGKey(999)
rand = jax.random.normal(key, (6, ))
psd_matrix_1 = jnp.outer(rand, rand) + jnp.eye(6)

key, _ = jax.random.split(key)  # expect: JIT502
rand = jax.random.normal(key, (6, ))
psd_matrix_2 = jnp.outer(rand, rand) + jnp.eye(6)

print(jnp.linalg.eigh(psd_matrix_1 + psd_matrix_2)[0])

if __name__ == "__main__":
    jax.config.update("jax_debug_key_reuse", True)

    def rejected(sampler, *args, **kwargs):
        k = jax.random.key(999)
        sampler(k, *args, **kwargs)
        try:
            jax.random.split(k)  # tolerate: JIT502
        except jax.errors.KeyReuseError:
            return True
        return False

    # observed: line 19 splits the key samples1 was drawn from: the checker rejects it
    assert rejected(jax.random.normal, shape=(5, ))
    # observed: line 22 splits the key samples2 was drawn from: the checker rejects it
    assert rejected(jax.random.uniform, shape=(5, ))
    # observed: line 31 splits the key the first rand was drawn from: the checker rejects it
    assert rejected(jax.random.normal, (6, ))
