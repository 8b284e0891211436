# source: https://github.com/randywzhang/llm_study/blob/b897ec1b1a81b7fcd0908fe0c1fe1659d81ab6d3/src/transformer/data_loader.py (with src/transformer/bigram_language_model.py at the same commit; fixed in cbd1df675a2869841c1915b2c2562ccafda7326a)
# observed on jax 0.10.2 CPU: get_batch() draws its indices with the key stored once in __init__ and never split, so every call returns the very same batch
# observed: line 87 two successive get_batch() calls return identical (x, y) batches; with a split key they differ
# gap: stale-state-attributes
# added: imports; load_raw_text() builds a synthetic text instead of reading tiny_shakespeare.txt, CharTokenizer
#   stands in for the repo's RegexTokenizer; save/load_encoding omitted; main() generates the encoding instead of
#   loading a pickle; the __main__ check.
from typing import Optional

import equinox
import jax
import jax.numpy as jnp
import jax.random as jrand
from equinox import nn
from jax import Array

BATCH_SIZE = 4
BLOCK_SIZE = 8

JRAND_SEED = 0


class CharTokenizer:
    def encode(self, text: str) -> list[int]:
        return [ord(c) - ord("a") for c in text]


class TransformerDataLoader:
    data_file: str
    directory: str
    raw_text: str
    tokenizer: CharTokenizer
    encoding: list[int]

    _data: Array
    _train_data: Array
    _val_data: Array

    batch_size: int
    block_size: int

    prng_key: Array

    # ruff: noqa: PLR0913
    def __init__(
        self,
        data_file: str,
        directory: Optional[str] = __file__,
        tokenizer: CharTokenizer = None,
        encoding_save_file: Optional[str] = None,
        batch_size: int = BATCH_SIZE,
        block_size: int = BLOCK_SIZE,
        jrand_seed: int = JRAND_SEED,
    ):
        self.data_file = data_file
        self.directory = directory
        self.load_raw_text()

        self.tokenizer = tokenizer
        self.encoding = None

        self._data = None
        self._train_data = None
        self._val_data = None

        self.batch_size = batch_size
        self.block_size = block_size

        self.prng_key = jrand.PRNGKey(jrand_seed)

    def load_raw_text(self) -> None:
        self.raw_text = "".join(chr(ord("a") + (i * 7) % 26) for i in range(500))

    def generate_encoding(self, tokenizer: CharTokenizer = None) -> None:
        if tokenizer:
            self.tokenizer = tokenizer

        self.encoding = self.tokenizer.encode(self.raw_text)

    def clear_data(self) -> None:
        self._data = None
        self._train_data = None
        self._val_data = None

    def get_batch(self, train: bool = True) -> tuple[Array, Array]:
        data = self.train_data if train else self.val_data
        ix = jrand.randint(  # expect: JIT502
            self.prng_key, (self.batch_size,), 0, len(data) - self.block_size
        )
        x = jnp.stack([data[i : i + self.block_size] for i in ix])
        y = jnp.stack([data[i + 1 : i + self.block_size + 1] for i in ix])
        return x, y

    @property
    def data(self) -> Array:
        if self._data is None:
            self._data = jnp.array(self.encoding)

        return self._data

    @property
    def train_data(self) -> Array:
        if self._train_data is None:
            self._train_data = self.data[: int(0.9 * self.data.shape[0])]

        return self._train_data

    @property
    def val_data(self) -> Array:
        if self._val_data is None:
            self._val_data = self.data[int(0.9 * self.data.shape[0]) :]

        return self._val_data

    @property
    def vocab_size(self) -> int:
        if self.encoding is None:
            return 0

        return len(set(self.encoding))


class BigramLanguageModel(equinox.Module):
    token_embedding_table: nn.Embedding
    prng_key: Array

    def __init__(self, vocab_size: int, jrand_seed: int = 0):
        self.prng_key = jrand.PRNGKey(jrand_seed)
        self.token_embedding_table = nn.Embedding(
            num_embeddings=vocab_size,
            embedding_size=vocab_size,
            key=self.prng_key,
        )

    def __call__(self, x: Array) -> Array:
        """
        @param x - model input 1d array

        for each entry in `input`, looks up the embedding for that entry
        ex:
        input [a, b]
        logits [<a_embedding>, <b_embedding>]
        where <*_embedding> is an Array representing next token probabilities
        """

        def f(x: Array) -> Array:
            return jax.vmap(self.token_embedding_table)(x)

        return f(x)


def main() -> None:
    data_loader = TransformerDataLoader("tiny_shakespeare.txt")
    data_loader.generate_encoding(CharTokenizer())

    xb, yb = data_loader.get_batch()

    blm = BigramLanguageModel(data_loader.vocab_size)

    @equinox.filter_jit
    def compute_loss(model: equinox.Module, x: Array, y: Array) -> float:
        out = jax.vmap(model)(x)  # vmap along batch dimension

        # cross entropy loss implementation
        B, T, C = out.shape
        out = out.reshape((B * T, C))
        targets = y.reshape(B * T)

        # softmax output
        out = jax.nn.softmax(out, axis=-1)

        # python for loop equivalent : y_pred = jnp.array([out[i][targets[i]] for i in range(B * T)])
        y_pred = jnp.take_along_axis(
            out, jnp.expand_dims(targets, axis=1), axis=-1
        ).squeeze(axis=1)

        Hs = -jnp.log(y_pred)

        # reduction = mean
        return jnp.mean(Hs)

    loss = compute_loss(blm, xb, yb)
    print(loss)


if __name__ == "__main__":
    main()

    loader = TransformerDataLoader("tiny_shakespeare.txt")
    loader.generate_encoding(CharTokenizer())
    x1, y1 = loader.get_batch()
    x2, y2 = loader.get_batch()
    print("batch 1 starts:", x1[:, 0], "batch 2 starts:", x2[:, 0])
    assert bool(jnp.all(x1 == x2)) and bool(jnp.all(y1 == y2))  # same batch every call
    k1, k2 = jrand.split(jrand.PRNGKey(JRAND_SEED))
    n = len(loader.train_data) - loader.block_size
    assert not bool(jnp.all(jrand.randint(k1, (4,), 0, n) == jrand.randint(k2, (4,), 0, n)))
    print("OK")
