# source: https://github.com/randywzhang/llm_study/blob/6c03c53ac2806e60c773546166f423c24d2763b5/src/transformer/transformer.py (commit "add dropout, parameterization, struggle with eval function and jit"; get_batch from src/transformer/data_loader.py at the same commit; the eval loop was replaced by jax.lax.scan in 5b95f042b03bf82c0abdc4c4bf072aeb99bb43f1)
# observed on jax 0.10.2 CPU: the same dropout key is consumed by several Dropout layers in one forward pass and the same (tiled) dropout keys are passed to every training step; eval_model unrolls its 200-iteration Python loop inside filter_jit
# observed: line 247 the second Dropout of MultiHeadAttention receives the same key as the first (keys recorded at jax.random.bernoulli are equal)
# observed: line 308 Block's final Dropout receives the key already consumed twice inside sa_head (3 equal keys per block)
# observed: line 477 the loop is unrolled under filter_jit: 960 traced equations for val_iters=2, 9.6k for 20, 95,802 for the default VAL_ITERS=200
# observed: line 540 make_step gets identical dropout keys at every step, and the same key for every example of the batch
# gap: flow-sensitive
# added: TransformerDataLoader reduced to the get_batch/data properties of the same commit over a synthetic encoding
#   (no file, tokenizer or pickle); train() is the training part of main() (serialisation, timing and the NaN branch
#   dropped); AttentionHead, generate_tokens and the argument parser omitted; the __main__ checks.
import math
from typing import Optional

import equinox
import jax
import jax.numpy as jnp
import jax.random as jrand
import optax
from equinox import nn
from jax import Array

BATCH_SIZE = 4
CONTEXT_SIZE = 8
JRAND_SEED = 0


class TransformerDataLoader:
    def __init__(self, encoding, batch_size: int = BATCH_SIZE, context_size: int = CONTEXT_SIZE,
                 jrand_seed: int = JRAND_SEED):
        self.encoding = encoding
        self._data = None
        self._train_data = None
        self._val_data = None
        self.batch_size = batch_size
        self.context_size = context_size
        self._prng_key = jrand.PRNGKey(jrand_seed)

    def refresh_data(self) -> tuple[Array, Array, Array]:
        return self.data, self.train_data, self.val_data

    def get_batch(
        self, train: bool = True, prng_key: Optional[Array] = None
    ) -> tuple[Array, Array, Array]:
        """
        In order to jit this function, a prng_key must be passed and
        refresh_data must be called
        """
        if prng_key is None:
            prng_key = self.prng_key

        data = self.train_data if train else self.val_data

        prng_key, subkey = jrand.split(prng_key)
        ix = jrand.randint(
            subkey,
            (self.batch_size,),
            0,
            len(data) - self.context_size,
        )
        iy = jnp.add(ix, 1)

        def slice_single(start: Array) -> Array:
            return jax.lax.dynamic_slice(data, (start,), (self.context_size,))

        x = jnp.stack(jax.vmap(slice_single)(ix))
        y = jnp.stack(jax.vmap(slice_single)(iy))
        # x = jnp.stack([data[i : i + self.context_size] for i in ix])
        # y = jnp.stack([data[i + 1 : i + self.context_size + 1] for i in ix])
        return x, y, prng_key

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


JRAND_SEED = 0

N_EMBED = 32
HEAD_SIZE = 32

DROPOUT = 0.2


NUM_HEADS = 4


class NumHeadsError(Exception):
    def __init__(self) -> None:
        super().__init__(msg="num_heads doesn't evenly divide out_size")


class MultiHeadAttention(equinox.Module):
    num_heads: int
    head_size: int
    context_size: int  # T

    key: nn.Linear
    query: nn.Linear
    value: nn.Linear

    multi_head_tril: Array

    dropout: nn.Dropout

    def __init__(
        self,
        num_heads: int,
        layer_prng_key: Array,
        n_embed: int = N_EMBED,
        context_size: int = CONTEXT_SIZE,
        dropout: float = DROPOUT,
    ):
        """
        n_embed is the in_size and the out_size for the module in order to
        allow for residual blocks.

        TODO: add output_proj linear layer
        Alternatively, we can introduce an output_proj layer that projects
        the output of the attention heads back up to the input_size which
        allows for more granular control of the attention hyperparameters


        TODO: Citations needed for the following claims

        n_embed is equivalent to eqx.nn.MultiheadAttention's query_size and
        casts the value_size and key_size to the same value.

        n_embed is also equivalent to eqx.nn.MultiheadAttention's qk_size
        multiplied by num_heads. vo_size here is equal to qk_size
        """
        head_size = n_embed // num_heads
        if n_embed != head_size * num_heads:
            raise NumHeadsError

        self.num_heads = num_heads
        self.head_size = head_size
        self.context_size = context_size

        layer_prng_key, subkey = jrand.split(layer_prng_key)
        self.key = nn.Linear(
            in_features=n_embed,
            out_features=head_size * num_heads,
            use_bias=False,
            key=subkey,
        )

        layer_prng_key, subkey = jrand.split(layer_prng_key)
        self.query = nn.Linear(
            in_features=n_embed,
            out_features=head_size * num_heads,
            use_bias=False,
            key=subkey,
        )

        layer_prng_key, subkey = jrand.split(layer_prng_key)
        self.value = nn.Linear(
            in_features=n_embed,
            out_features=head_size * num_heads,
            use_bias=False,
            key=subkey,
        )

        tril = jnp.tril(jnp.ones((context_size, context_size)))
        single_head_tril = jnp.expand_dims(tril, axis=0)
        self.multi_head_tril = jnp.tile(single_head_tril, reps=(num_heads, 1, 1))

        self.dropout = nn.Dropout(dropout)

        """
        Naive impl:

            self.heads = [
                AttentionHead(n_embed, head_size, context_size, jrand_seed)
                for _ in range(num_heads)
            ]
        """

    def __call__(self, x: Array, *, key: Optional[Array] = None) -> Array:
        """
        Naive impl:

            return jnp.concat([h(x) for h in self.heads], axis=-1)
        """

        # get the individual attention heads via self._project
        query_heads = self._project(self.query, x)  # (T, num_heads, head_size)
        key_heads = self._project(self.key, x)
        value_heads = self._project(self.value, x)

        # reshape heads for matmul
        # combine key_heads transposes in context_mat calculation:
        #   transpose(key_heads, (1, 0, 2)) -> (num_heads, T, head_size)
        #   transpose(key_heads, (1, 2, 0)) -> (num_heads, head_size, T)
        query_heads = jnp.transpose(query_heads, (1, 0, 2))  # (num_heads, T, head_size)
        value_heads = jnp.transpose(value_heads, (1, 0, 2))

        # obtain the context matrices for each attention head
        context_mat = (
            query_heads
            @ jnp.transpose(key_heads, axes=(1, 2, 0))
            * self.head_size**-0.5
        )  # (num_heads, T, T)

        # --DECODER LOGIC--
        context_mat = jnp.where(self.multi_head_tril == 0, -jnp.inf, context_mat)
        # --END DECODER LOGIC--

        context_mat = jax.nn.softmax(context_mat, axis=-1)

        # apply dropout to block communication between tokens
        context_mat = self.dropout(context_mat, key=key)

        output = context_mat @ value_heads  # (num_heads, T, head_size)
        output = jnp.transpose(output, axes=(1, 0, 2)).reshape(
            self.context_size, self.num_heads * self.head_size
        )  # transpose to (T, num_heads, head_size), reshape to (T, num_heads * head_size)

        return self.dropout(output, key=key)  # apply dropout  # expect: JIT502

    # same as equinox.nn._attention.MultiheadAttention._project
    def _project(self, proj: nn.Linear, x: Array) -> Array:
        seq_length, _ = x.shape  # (T, embed_size)
        projection = jax.vmap(proj)(x)  # feeds x through each attn head, (T, out_size)
        return projection.reshape(
            seq_length, self.num_heads, -1
        )  # reshapes output (T, num_heads, head_size)


class Block(equinox.Module):
    """
    Transformer block: communication followed by computation

    Implemented as a residual block with pre-norm formulation
    """

    sa_head: MultiHeadAttention  # self_attention_head
    ff_layer: nn.Linear  # feed_forward layer to process attn

    ln_sa: nn.LayerNorm
    ln_ff: nn.LayerNorm

    dropout: nn.Dropout

    def __init__(
        self,
        layer_prng_key: Array,
        num_heads: int = NUM_HEADS,
        n_embed: int = N_EMBED,  # C_embed
        context_size: int = CONTEXT_SIZE,  # T
        dropout: float = DROPOUT,
    ):
        self.ln_sa = nn.LayerNorm(n_embed)
        self.sa_head = MultiHeadAttention(
            num_heads=num_heads,
            layer_prng_key=layer_prng_key,
            n_embed=n_embed,
            context_size=context_size,
            dropout=dropout,
        )

        self.ln_ff = nn.LayerNorm(n_embed)
        layer_prng_key, subkey = jrand.split(layer_prng_key)
        self.ff_layer = nn.Linear(
            in_features=n_embed,
            out_features=n_embed,
            key=subkey,
        )

        self.dropout = nn.Dropout(dropout)

    def __call__(self, x: Array, *, key: Optional[Array] = None) -> Array:
        # residual self attention block (sum input to layer outputs)
        x = jax.vmap(self.ln_sa)(x)  # pre-norm formulation
        x = x + self.sa_head(x, key=key)

        x = jax.vmap(self.ln_ff)(x)  # pre-norm formulation
        x = jax.vmap(self.ff_layer)(x)
        x = x + jax.nn.relu(x)
        return self.dropout(x, key=key)  # expect: JIT502


N_BLOCKS = 3


class Transformer(equinox.Module):
    token_embedding_table: nn.Embedding
    position_embedding_table: nn.Embedding
    attention_blocks: nn.Sequential
    lmh_pre_norm: nn.LayerNorm
    lm_head: nn.Linear  # language_model_head

    context_size: int  # T

    def __init__(
        self,
        vocab_size: int,  # C_vocab
        n_embed: int = N_EMBED,  # C_embed, head_size * num_heads
        context_size: int = CONTEXT_SIZE,  # T
        num_heads: int = 1,  # equivalent to single attention head
        num_blocks: int = N_BLOCKS,
        jrand_seed: int = JRAND_SEED,
        dropout: float = DROPOUT,
    ):
        layer_prng_key = jrand.PRNGKey(jrand_seed)

        layer_prng_key, subkey = jrand.split(layer_prng_key)
        self.token_embedding_table = nn.Embedding(
            num_embeddings=vocab_size,
            embedding_size=n_embed,
            key=subkey,
        )

        layer_prng_key, subkey = jrand.split(layer_prng_key)
        self.position_embedding_table = nn.Embedding(
            num_embeddings=vocab_size,
            embedding_size=n_embed,
            key=subkey,
        )

        blocks: list[equinox.Module] = []
        for _ in range(num_blocks):
            layer_prng_key, subkey = jrand.split(layer_prng_key)
            blocks.append(
                Block(
                    layer_prng_key=subkey,
                    num_heads=num_heads,
                    n_embed=n_embed,
                    context_size=context_size,
                    dropout=dropout,
                )
            )

        self.attention_blocks = nn.Sequential(blocks)

        self.lmh_pre_norm = nn.LayerNorm(n_embed)

        layer_prng_key, subkey = jrand.split(layer_prng_key)
        self.lm_head = nn.Linear(
            in_features=n_embed,
            out_features=vocab_size,
            key=subkey,
        )

        self.context_size = context_size

    def generate_token(self, x: Array, prng_key: Array) -> int:
        """
        @param x - model input context 1d array

        generates the next token index given the input context
        """
        logits = self.__call__(x)

        # equivalent to torch.multinomial(softmax(logits, axis=-1), num_samples = 1)
        return jax.random.categorical(prng_key, logits)

    def __call__(self, x: Array, *, key: Optional[Array] = None) -> Array:
        """
        @param x - model input context
        """
        # compute embedding
        tok_emb = jax.vmap(self.token_embedding_table)(x)  # (T, C_embed)
        pos_emb = jax.vmap(self.position_embedding_table)(
            jnp.arange(self.context_size)
        )  # (T, C_embed)
        emb = tok_emb + pos_emb

        # feed embedding through attention head, head_size * num_heads = C_embed
        emb = self.attention_blocks(emb, key=key)  # (T, C_embed)

        # applies layer normalization
        emb = jax.vmap(self.lmh_pre_norm)(emb)  # (T, C_embed)

        logits = jax.vmap(self.lm_head)(emb)  # (T, C_vocab)

        return logits


def compute_loss(
    model: equinox.Module, x: Array, y: Array, key: Optional[Array] = None
) -> float:
    out = jax.vmap(model)(x, key=key)  # vmap along batch dimension

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
    loss_fn: callable,
    key: Optional[Array] = None,
) -> tuple[float, equinox.Module, optax.OptState]:
    loss, grads = loss_fn(model, batch_input, batch_expected, key)
    updates, opt_state = opt_update(grads, opt_state)
    model = equinox.apply_updates(model, updates)
    return loss, model, opt_state


VAL_ITERS = 200  # validation loops


@equinox.filter_jit
def eval_model(
    model: equinox.Module,
    data_loader: TransformerDataLoader,
    prng_key: Array,
    val_iters: int = VAL_ITERS,
) -> float:
    model = nn.inference_mode(model)
    total_loss: float = 0
    n_iters: int = 0

    # def aggregate_loss(
    #     init_val: tuple[float, int, Array], _x: int
    # ) -> tuple[float, int]:
    #     total_loss, n_iters, prng_key = init_val
    #     xv, yv, prng_key = data_loader.get_batch(train=False, prng_key=prng_key)
    #     loss = compute_loss(model, xv, yv)

    #     return total_loss + loss, n_iters + 1, prng_key

    # total_loss, n_iters = jax.lax.scan(
    #     aggregate_loss,
    #     (total_loss, n_iters, prng_key),
    #     jnp.ones(val_iters),
    # )

    for _ in range(val_iters):  # expect: JIT303
        prng_key, subkey = jrand.split(prng_key)
        xv, yv, prng_key = data_loader.get_batch(train=False, prng_key=subkey)
        loss = compute_loss(model, xv, yv)

        total_loss += loss
        n_iters += 1

    model = nn.inference_mode(model, value=False)

    return total_loss / n_iters




# ruff: noqa: PLR0913
def train(
    lr: int = 3e-4,
    num_steps: int = 50_000,
    epoch_size: int = 10_000,
    batch_size: int = BATCH_SIZE,
    evaluate: bool = False,
    val_iters: int = VAL_ITERS,
    context_size: int = CONTEXT_SIZE,
    n_blocks: int = N_BLOCKS,
    n_embed: int = N_EMBED,
    num_heads: int = NUM_HEADS,
    dropout: float = DROPOUT,
    rand_seed: int = JRAND_SEED,
    encoding=None,
):
    data_loader = TransformerDataLoader(encoding)

    data_loader.batch_size = batch_size
    data_loader.context_size = context_size
    data_loader.refresh_data()

    transformer = Transformer(
        vocab_size=data_loader.vocab_size,
        n_embed=n_embed,
        context_size=context_size,
        num_heads=num_heads,
        num_blocks=n_blocks,
        jrand_seed=rand_seed,
        dropout=dropout,
    )

    opt = optax.adabelief(lr)
    opt_state = opt.init(equinox.filter(transformer, equinox.is_inexact_array))

    total_loss = 0
    total_size = 0

    prng_key = jrand.PRNGKey(rand_seed)
    dropout_keys = jnp.tile(prng_key, (batch_size, 1))

    get_train_data = equinox.filter_jit(data_loader.get_batch)

    loss_fn = equinox.filter_value_and_grad(compute_loss)

    for step in range(num_steps):
        batch_input, batch_expected, prng_key = get_train_data(prng_key=prng_key)

        loss, transformer, opt_state = make_step(  # expect: JIT502
            model=transformer,
            batch_input=batch_input,
            batch_expected=batch_expected,
            opt_state=opt_state,
            opt_update=opt.update,
            loss_fn=loss_fn,
            key=dropout_keys,
        )

        total_loss += loss
        total_size += 1
        if (step % epoch_size) == 0 or step == num_steps - 1:
            print(f"Epoch: {(step + 1) // epoch_size}")
            print(f"\tTraining loss: {total_loss / total_size}")
            total_loss = 0
            total_size = 0

            if evaluate:
                val_loss = eval_model(transformer, data_loader, prng_key, val_iters)
                print(f"\tValidation loss: {val_loss}")

    return transformer, data_loader


if __name__ == "__main__":
    encoding = [(i * 7) % 16 for i in range(400)]

    # 1) Dropout keys inside one forward pass: record every key handed to jax.random.bernoulli
    recorded = []
    _bernoulli = jax.random.bernoulli

    def recording_bernoulli(key, p=0.5, shape=None, *args, **kwargs):
        recorded.append(key)
        return _bernoulli(key, p, shape, *args, **kwargs)

    jax.random.bernoulli = recording_bernoulli
    model = Transformer(vocab_size=16, num_heads=NUM_HEADS)
    model(jnp.arange(CONTEXT_SIZE), key=jrand.PRNGKey(1))
    jax.random.bernoulli = _bernoulli
    print("dropout calls:", len(recorded))
    assert len(recorded) == 3 * N_BLOCKS
    same = lambda a, b: bool(jnp.all(a == b))
    for b in range(N_BLOCKS):
        k_ctx, k_out, k_block = recorded[3 * b : 3 * b + 3]
        assert same(k_ctx, k_out)  # MultiHeadAttention: second dropout reuses the key
        assert same(k_out, k_block)  # Block: final dropout reuses the key sa_head consumed
    assert not same(recorded[0], recorded[3])  # (nn.Sequential does split between blocks)

    # 2) Keys handed to make_step over several training steps
    step_keys = []
    _make_step = make_step

    def recording_make_step(**kwargs):
        step_keys.append(kwargs["key"])
        return _make_step(**kwargs)

    globals()["make_step"] = recording_make_step
    train(num_steps=3, epoch_size=10, encoding=encoding)
    globals()["make_step"] = _make_step
    assert all(same(k, step_keys[0]) for k in step_keys)  # identical dropout keys every step
    assert same(step_keys[0][0], step_keys[0][1])  # and for every example in the batch
    print("make_step dropout keys identical over", len(step_keys), "steps")

    # 3) eval_model's Python loop is unrolled into the traced program
    loader = TransformerDataLoader(encoding)
    loader.refresh_data()

    def count_eqns(jaxpr):
        n = 0
        for eqn in jaxpr.eqns:
            n += 1
            for v in eqn.params.values():
                inner = getattr(v, "jaxpr", None)
                if inner is not None and hasattr(inner, "eqns"):
                    n += count_eqns(inner)
                elif hasattr(v, "eqns"):
                    n += count_eqns(v)
        return n

    sizes = {}
    for iters in (2, 20):
        closed = equinox.filter_make_jaxpr(eval_model)(model, loader, jrand.PRNGKey(2), iters)[0]
        sizes[iters] = count_eqns(closed.jaxpr)
    print("traced equations: val_iters=2 ->", sizes[2], "; val_iters=20 ->", sizes[20])
    assert sizes[20] > 8 * sizes[2]  # linear in val_iters; VAL_ITERS=200 gives ~100x
    print("OK")
