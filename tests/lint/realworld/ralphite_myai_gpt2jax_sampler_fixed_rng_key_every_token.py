# source: https://github.com/ralphite/myai/blob/5503a9558f368edd3e87d4bf5b14237dc8eda7d0/reprod/gpt2_jax/generate.py
#   (an individual's GPT-2 reproduction in flax; generate.py, "sampler and generator impl",
#   with the config.py and model.py it imports)
# observed on jax 0.10.2 CPU: Sample keeps one PRNG key in self.rng_key and draws every token
#   of the generation loop from it with jax.random.categorical, never splitting it: each step
#   reuses the same Gumbel noise, so on flat logits the sampler returns the same token every
#   time (eight draws, one token), where eight fresh keys give several tokens.
#   Changed: the model sizes in GPT2ModelConfig (vocab 50257 -> 64, context 1024 -> 64,
#   12 layers/768 wide/12 heads -> 2/32/4) and max_length (32 -> 14) so that the file runs
#   quickly on CPU.
#   Added: the three files joined in one; stand-ins for utils.py's load_hf_tokenizer (a
#   word-level tokenizer) and load_hf_pretrained_params (freshly initialised parameters)
#   in place of the HuggingFace GPT-2 tokenizer and weights; the check at the end of the
#   __main__ block.
# gap: other
from abc import ABC, abstractmethod
from dataclasses import dataclass

import flax.linen as nn
import jax
import jax.numpy as jnp
import jax.random as random
import numpy as np


# ---- config.py ----
@dataclass(frozen=True)
class GPT2ModelConfig:
    vocab_size: int = 64  # V
    context_size: int = 64
    n_layer: int = 2  # D
    n_embd: int = 32  # C
    n_head: int = 4  # H


GPT2_SM_MODEL_CONFIG = GPT2ModelConfig()
RNG_KEY = jax.random.PRNGKey(12)


# ---- model.py ----
class GPT2LMHeadModel(nn.Module):
    config: GPT2ModelConfig

    @nn.compact
    def __call__(self, input_ids):
        output = GPT2Model(name="transformer", config=self.config)(input_ids)

        lm_logits = nn.Dense(
            name="lm_head", features=self.config.vocab_size, use_bias=False
        )(output)
        return lm_logits


class GPT2Model(nn.Module):
    config: GPT2ModelConfig

    @nn.compact
    def __call__(self, input_ids):
        input_embeddings = nn.Embed(
            name="wte",
            num_embeddings=self.config.vocab_size,
            features=self.config.n_embd,
        )(input_ids)
        position_ids = jnp.arange(start=0, stop=input_ids.shape[-1])

        # Q: should this be learned or from a formula?
        position_embeddings = nn.Embed(
            name="wpe",
            num_embeddings=self.config.context_size,
            features=self.config.n_embd,
        )(position_ids)
        x = input_embeddings + position_embeddings

        for block_id in range(self.config.n_layer):
            x = GPT2Block(name=f"block_{block_id}", config=self.config)(x)

        x = nn.LayerNorm(name="ln_f")(x)
        return x


class GPT2Block(nn.Module):
    config: GPT2ModelConfig

    @nn.compact
    def __call__(self, x):
        x = x + GPT2MultiHeadAttention(name="attn", config=self.config)(
            nn.LayerNorm(name="ln_1")(x)
        )
        x = x + GPT2MLP(name="mlp", config=self.config)(nn.LayerNorm(name="ln_2")(x))
        return x


class GPT2MultiHeadAttention(nn.Module):
    config: GPT2ModelConfig

    def setup(self):
        self.causal_mask = jnp.tril(
            jnp.ones((self.config.context_size, self.config.context_size))
        ).astype(bool)

    @nn.compact
    def __call__(self, x):
        orig_shape = x.shape
        head_size = self.config.n_embd // self.config.n_head
        new_shape = orig_shape[:-1] + (self.config.n_head, head_size)

        x = nn.Dense(name="c_attn", features=self.config.n_embd * 3)(x)
        q, k, v = jnp.split(x, 3, axis=-1)
        q = jnp.swapaxes(jnp.reshape(q, new_shape), -2, -3)
        k = jnp.swapaxes(jnp.reshape(k, new_shape), -2, -3)
        v = jnp.swapaxes(jnp.reshape(v, new_shape), -2, -3)

        attn_weights = jnp.matmul(q, jnp.swapaxes(k, -1, -2)) / jnp.sqrt(head_size)
        attn_weights = jnp.where(
            self.causal_mask[: orig_shape[-2], : orig_shape[-2]],
            attn_weights,
            -1e4,
        )
        attn_weights = nn.softmax(attn_weights, axis=-1)
        attn_weights = attn_weights.astype(v.dtype)
        x = jnp.matmul(attn_weights, v)
        x = jnp.swapaxes(x, -2, -3)
        x = jnp.reshape(x, orig_shape)

        x = nn.Dense(name="c_proj", features=self.config.n_embd)(x)
        return x


class GPT2MLP(nn.Module):
    config: GPT2ModelConfig

    @nn.compact
    def __call__(self, x):
        x = nn.Dense(name="c_fc", features=self.config.n_embd * 4)(x)
        x = nn.gelu(x)
        x = nn.Dense(name="c_proj", features=self.config.n_embd)(x)
        return x


# ---- stand-ins for utils.py (HF GPT-2 tokenizer and pretrained weights) ----
class _WordTokenizer:
    words = ("<unk> Alan Turing theorized that computers would one day become the most "
             "powerful machines in world and people will use them to think about").split()

    def encode(self, text, return_tensors=None):
        ids = [self.words.index(w) if w in self.words else 0 for w in text.split()]
        return np.array([ids]) if return_tensors == "np" else ids

    def decode(self, ids):
        return " ".join(self.words[i % len(self.words)] for i in ids)


def load_hf_tokenizer():
    return _WordTokenizer()


def load_hf_pretrained_params():
    return GPT2LMHeadModel(config=GPT2_SM_MODEL_CONFIG).init(
        jax.random.PRNGKey(0), jnp.zeros((1, 4), dtype=jnp.int32)
    )


# ---- generate.py ----
class BaseDecoder(ABC):
    @abstractmethod
    def __call__(self, logits: jax.Array):
        pass


class GreedySearch(BaseDecoder):
    def __call__(self, logits: jax.Array):
        assert logits.ndim >= 2
        return jnp.argmax(logits[..., -1, :], axis=-1)


class Sample(BaseDecoder):
    def __init__(
        self,
        temperature: float = 1.0,
        top_k: int = 50,
        top_p: float = 1.0,
        num_samples: int = 1,
        rng_key: jax.random.PRNGKey = RNG_KEY,
    ):
        self.temperature = temperature
        self.top_k = top_k
        self.top_p = top_p
        self.num_samples = num_samples
        self.rng_key = rng_key

    def __call__(self, logits: jax.Array):
        assert logits.ndim >= 2
        assert self.num_samples >= 1

        if self.temperature == 0:
            return GreedySearch()(logits)

        x = logits[..., -1, :]  # (B, C)

        # Apply temperature scaling
        x = x / self.temperature

        # Apply top-k filtering
        if self.top_k > 0:
            top_k = min(self.top_k, logits.shape[-1])
            _, top_k_indices = jax.lax.top_k(x, k=top_k)
            top_k_indices = top_k_indices.astype(jnp.uint16)
            one_hot_top_k = jax.nn.one_hot(
                top_k_indices, axis=-1, num_classes=logits.shape[-1]
            )
            top_k_mask = jnp.sum(one_hot_top_k, axis=-2)
            x = jnp.where(top_k_mask, x, -jnp.inf)

        # # Apply top-p filtering
        if self.top_p < 1.0:
            raise NotImplementedError()

        # Sample from the filtered logits
        sample = random.categorical(self.rng_key, x, shape=(self.num_samples,), axis=-1)  # expect: JIT502
        return sample


class BeamSearch(BaseDecoder):
    def __call__(self, logits: jax.Array):
        raise NotImplementedError()


class Generator:
    def __init__(self, decoder: BaseDecoder = GreedySearch()) -> None:
        self._tokenizer = load_hf_tokenizer()
        self._lm = GPT2LMHeadModel(config=GPT2_SM_MODEL_CONFIG)
        self._pretrained_params = load_hf_pretrained_params()
        self._decoder = decoder

    def __call__(
        self,
        prompt: str,
        max_length: int = 128,
    ) -> str:
        input_ids = jnp.array(self._tokenizer.encode(prompt, return_tensors="np"))
        self._lm.init(RNG_KEY, input_ids=input_ids)
        while input_ids.shape[-1] < max_length:
            logits = self._lm.apply(self._pretrained_params, input_ids=input_ids)
            next_id = self._decoder(logits)
            input_ids = jnp.array([jnp.append(input_ids, next_id).tolist()])
        return self._tokenizer.decode(input_ids.squeeze().tolist())


if __name__ == "__main__":
    greedy_gen = Generator()
    sample_gen = Generator(decoder=Sample(temperature=1.5, top_k=8))

    for gen in [greedy_gen, sample_gen]:
        output = gen(
            "Alan Turing theorized that computers would one day become",
            max_length=14,
        )
        print(output)

    flat = jnp.zeros((1, 1, GPT2_SM_MODEL_CONFIG.vocab_size))
    draws = {int(sample_gen._decoder(flat)[0]) for _ in range(8)}
    fresh = {int(random.categorical(k, flat[..., -1, :] / 1.5)[0]) for k in random.split(RNG_KEY, 8)}
    # observed: line 219 samples every token from the one key self.rng_key: eight draws on flat
    # logits give one token, eight fresh keys give several
    assert len(draws) == 1 and len(fresh) > 1
