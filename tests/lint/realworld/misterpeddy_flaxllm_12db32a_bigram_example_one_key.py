# source: https://github.com/misterpeddy/flax-llm/blob/12db32a19e5ea3b152bfdd92f0d39a65fa46c0f1/models/bigram.py
#   (an individual's LLMs in flax: the bigram language model and its example usage)
# observed on jax 0.10.2 CPU: the example draws the random input tokens from random_key
#   and then hands the same random_key to generate, which splits it for its samples: JAX's
#   key-reuse checker raises KeyReuseError at generate's split (line 39) called from the
#   example's generate line. (model.init also gets random_key; flax folds the key before
#   drawing and the checker does not report it, so it is left unlabelled.) generate itself
#   splits its key correctly; the checker names its split only because it is handed the
#   used key (tolerated there).
#   Changed: the example, written at module level under `if __name__ == "__main__":`, is
#   moved into a function example(random_key) so it can be replayed with a typed key; its
#   lines are kept. Added: the replay under jax_debug_key_reuse in the __main__ block.
# gap: other
# observed: line 58 generate splits random_key, which randint already consumed: KeyReuseError under jax_debug_key_reuse, raised at the split inside generate, called from this line

import flax
from flax import linen as nn
import jax
import jax.numpy as jnp

FrozenDict = flax.core.FrozenDict


class BigramLM(nn.Module):

    vocab_size: int

    @nn.compact
    def __call__(self, inputs):
        """Looks up inputs in a lookup table to assign log prob to each vocab element."""
        return nn.Embed(num_embeddings=self.vocab_size, features=self.vocab_size)(inputs)

    def generate(self, rng_key: jax.Array, params: FrozenDict, inputs: jax.Array, seq_len: int = 1) -> jax.Array:
        """Continues inputs [B, T] to generate [B, seq_len] outputs."""
        inputs = inputs[:, -1]
        gen = jnp.zeros((inputs.shape[0], seq_len))
        for i in range(seq_len):
            logits = self.apply(variables=params, inputs=inputs)
            rng_key, rng_subkey = jax.random.split(rng_key)  # tolerate: JIT502
            top_1 = jax.random.categorical(rng_subkey, logits)
            gen = gen.at[:, i].set(top_1)
            inputs = top_1
        return gen


def example(random_key):
    """Example usage."""
    vocab_size = 256
    model = BigramLM(vocab_size=vocab_size)

    batch_size = 4
    block_size = 8
    random_x = jax.random.randint(key=random_key, shape=(
        batch_size, block_size), dtype=int, minval=0, maxval=vocab_size)

    params = model.init(random_key, random_x)

    gen = model.generate(random_key, params, inputs=random_x, seq_len=2)  # expect: JIT502

    print(gen)
    return model, random_x, params


if __name__ == "__main__":
    import traceback

    random_key = jax.random.PRNGKey(seed=42)
    model, random_x, params = example(random_key)

    def reuse_frames(fn):
        jax.config.update("jax_debug_key_reuse", True)
        try:
            fn()
        except jax.errors.KeyReuseError as e:
            return [fr.lineno for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        finally:
            jax.config.update("jax_debug_key_reuse", False)
        return []

    # the example as written, replayed with a typed key under jax_debug_key_reuse
    frames = reuse_frames(lambda: example(jax.random.key(42)))
    assert frames[-2:] == [58, 39], frames
