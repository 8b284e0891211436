# source: https://github.com/randywzhang/llm_study/blob/cbd1df675a2869841c1915b2c2562ccafda7326a/src/transformer/bigram_language_model.py (with the fixed get_batch / prng_key property of src/transformer/data_loader.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean; each get_batch() call splits the loader's key so batches differ, make_step compiles once for the whole loop, generation splits the key per token
# gap: stale-state-attributes
# added: TransformerDataLoader reduced to get_batch and the data / prng_key properties of the same commit over a
#   synthetic encoding (no file, tokenizer or pickle); main() keeps the training loop and generation (serialisation,
#   tokenizer decode and argument parsing dropped, sizes small); the __main__ checks.

import equinox
import jax
import jax.numpy as jnp
import jax.random as jrand
import optax
from equinox import nn
from jax import Array

BATCH_SIZE = 4
BLOCK_SIZE = 8

JRAND_SEED = 0


class TransformerDataLoader:
    def __init__(self, encoding, batch_size: int = BATCH_SIZE, block_size: int = BLOCK_SIZE,
                 jrand_seed: int = JRAND_SEED):
        self.encoding = encoding
        self._data = None
        self._train_data = None
        self._val_data = None

        self.batch_size = batch_size
        self.block_size = block_size

        self._prng_key = jrand.PRNGKey(jrand_seed)

    def get_batch(self, train: bool = True) -> tuple[Array, Array]:
        data = self.train_data if train else self.val_data
        ix = jrand.randint(
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

    @property
    def prng_key(self) -> Array:
        self._prng_key, subkey = jrand.split(self._prng_key)
        return subkey


class BigramLanguageModel(equinox.Module):
    token_embedding_table: nn.Embedding

    def __init__(self, vocab_size: int, layer_prng_key: Array):
        self.token_embedding_table = nn.Embedding(
            num_embeddings=vocab_size,
            embedding_size=vocab_size,
            key=layer_prng_key,
        )

    def generate_token(self, x: Array, prng_key: Array) -> int:
        """
        @param x - model input context 1d array

        generates the next token index given the input context
        """
        logits = self.__call__(x)

        # equivalent to torch.multinomial(softmax(logits, axis=-1), num_samples = 1)
        return jax.random.categorical(prng_key, logits)

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


@equinox.filter_value_and_grad
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

    # mean reduction
    return jnp.mean(Hs)


@equinox.filter_jit
def make_step(
    model: equinox.Module,
    batch_input: Array,
    batch_expected: Array,
    opt_state: optax.OptState,
    opt_update: optax.TransformUpdateFn,
) -> tuple[float, equinox.Module, optax.OptState]:
    loss, grads = compute_loss(model, batch_input, batch_expected)
    updates, opt_state = opt_update(grads, opt_state)
    model = equinox.apply_updates(model, updates)
    return loss, model, opt_state


NUM_NEW_TOKENS = 100


def generate_tokens(
    model: equinox.Module, num_new_tokens: int = NUM_NEW_TOKENS, seed: int = 0
) -> list[int]:
    prng_key = jrand.PRNGKey(seed)
    generated_tokens = []
    next_token = jnp.array([0])
    for _ in range(num_new_tokens):
        prng_key, subkey = jrand.split(prng_key)
        next_token = model.generate_token(next_token, subkey)
        generated_tokens.append(next_token[0].item())

    return generated_tokens


# ruff: noqa: PLR0913
def main(
    lr: int = 3e-4,
    num_steps: int = 50_000,
    epoch_size: int = 10_000,
    train: bool = False,
    rand_seed: int = JRAND_SEED,
    num_new_tokens: int = NUM_NEW_TOKENS,
    encoding=None,
):
    data_loader = TransformerDataLoader(encoding)

    prng_key = jrand.PRNGKey(rand_seed)
    prng_key, subkey = jrand.split(prng_key)
    blm = BigramLanguageModel(data_loader.vocab_size, subkey)

    opt = optax.adabelief(lr)
    opt_state = opt.init(equinox.filter(blm, equinox.is_inexact_array))

    if train:
        total_loss = 0
        total_size = 0
        import math

        for step in range(num_steps):
            batch_input, batch_expected = data_loader.get_batch()

            loss, blm, opt_state = make_step(
                blm, batch_input, batch_expected, opt_state, opt.update
            )
            # TODO: figure out why ~25% of steps result in nan loss
            if math.isnan(loss):
                if total_size == 0:
                    total_size = 1

                if (step % epoch_size) == 0 or step == num_steps - 1:
                    print(f"Loss: {loss}, Total: {total_loss}, Size: {total_size}")
                    print(f"Step={step} Loss={total_loss / total_size}")
                    total_loss = 0
                    total_size = 0
                continue

            total_loss += loss
            total_size += 1
            if (step % epoch_size) == 0 or step == num_steps - 1:
                print(f"Loss: {loss}, Total: {total_loss}, Size: {total_size}")
                print(f"Step={step} Loss={total_loss / total_size}")
                total_loss = 0
                total_size = 0


    generated_tokens = generate_tokens(
        model=blm,
        num_new_tokens=num_new_tokens,
        seed=rand_seed,
    )
    print(generated_tokens)
    return generated_tokens


if __name__ == "__main__":
    encoding = [(i * 7) % 26 for i in range(500)]

    loader = TransformerDataLoader(encoding)
    x1, _ = loader.get_batch()
    x2, _ = loader.get_batch()
    assert not bool(jnp.all(x1 == x2))  # the property splits the key on every access

    main(train=True, num_steps=5, epoch_size=10, num_new_tokens=10, encoding=encoding)

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    tokens = main(train=True, num_steps=20, epoch_size=10, num_new_tokens=20, encoding=encoding)
    print("backend compiles during a 20-step run:", compiles)
    # one compile of make_step per main() call (opt.update is a new static argument each call), none per step
    assert compiles.count("jit(make_step)") == 1, compiles
    assert len(set(tokens)) > 1
    print("OK")
