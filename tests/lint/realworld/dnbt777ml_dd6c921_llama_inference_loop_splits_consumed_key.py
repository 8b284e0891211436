# source: https://github.com/dnbt777/ml/blob/dd6c92116e6363b3e79ef25c6be3811083fb680a/IN_PROGRESS/LLAMA_VISION_FORWARD/inference.py
#   (an individual's from-scratch Llama 3.2 port in JAX, commit "Token generation now works": the
#   inference loop of inference.py with `inference` from inference_utils.py, text_forward,
#   self_attention_layer, layer_norm and embed_tokens from llama_logic.py, encode/decode from
#   tokenizer.py and the NamedTuples of llama_types.py, all at the same commit)
# observed on jax 0.10.2 CPU: the loop hands rolling_key to the jitted inference, which draws the
#   token from it with jrand.categorical, and then makes the next key with
#   `rolling_key, _ = jrand.split(rolling_key, 2)` from that same consumed key: each key is the
#   split of the last draw's key, and the first random bits the draw took (the Gumbel noise of
#   token 0) are the XOR of the next key's two words; JAX's key-reuse checker raises at the split.
#   (The jitted inference also compiles again for every new context length, which the author's
#   TODO in llama_logic.py notices: one compile per token, the price of a growing shape.)
#   Added/changed: the 11B checkpoint and tokenizer.json are replaced by small random weights
#   (H_Q=32 and H_KV=8 heads stay hard-coded, so width 64) and a character vocabulary with no
#   merges; LlamaParams keeps only language_model (the vision fields are unused by text_forward);
#   llama_logic's unused `forward`/`inference` stubs and the vision types are left out; the
#   loop runs 6 tokens instead of 100 and sits in the __main__ block, after the setup, with
#   a harness that records the key handed to each inference call and the check.
# gap: other
import functools
import time
from typing import List, NamedTuple, TypeAlias

import jax
import jax.numpy as jnp
import jax.random as jrand


## llama_types.py
class Tokenizer(NamedTuple):
  vocab: dict
  merges: dict

Text: TypeAlias = str
Tokens: TypeAlias = jax.Array
Token: TypeAlias = int


class LangModelSelfAttentionLayer(NamedTuple):
    input_layernorm_weight: jax.Array
    mlp_down_proj_weight: jax.Array
    mlp_gate_proj_weight: jax.Array
    mlp_up_proj_weight: jax.Array
    post_attention_layernorm_weight: jax.Array
    self_attn_k_proj_weight: jax.Array
    self_attn_o_proj_weight: jax.Array
    self_attn_q_proj_weight: jax.Array
    self_attn_v_proj_weight: jax.Array


class LangModelModel(NamedTuple):
    norm_weight: jax.Array
    self_attention_layers: List[LangModelSelfAttentionLayer]
    cross_attention_layers: list


class LangModel(NamedTuple):
    lm_head_weight: jax.Array
    model: LangModelModel


class LlamaParams(NamedTuple):  # trimmed: vision_model and multi_modal_projector left out
    language_model: LangModel


## tokenizer.py
BPE_SPACE_CHAR = 'Ġ'


# text -> tokens
def encode(tokenizer: Tokenizer, text: str) -> Tokens:
  # prep subwords. replace space with Gspace
  subwords = text
  subwords = subwords.replace(" ", BPE_SPACE_CHAR)
  subwords = list(subwords)
  # do merge loop until no more merges are possible
  i = 0
  while 1:
    if i == len(subwords) - 1:
        break # done
    attempted_merge = f"{subwords[i]} {subwords[i+1]}"
    if attempted_merge in tokenizer.merges:
      subwords[i] = attempted_merge.replace(" ", "")
      subwords.pop(i+1)
      # if merge found, restart
      i = 0
      continue
    else:
      i += 1
  # convert to tokens and return
  encoded = [tokenizer.vocab[subword] for subword in subwords]
  return encoded


# tokens -> text
def decode(tokenizer: Tokenizer, tokens: Tokens) -> Text:
  vocab_list = list(tokenizer.vocab.keys())
  if tokens.shape[0] == 1:
      return vocab_list[int(tokens[0])].replace(BPE_SPACE_CHAR, " ")
  return ("".join([vocab_list[int(token)] for token in tokens])).replace(BPE_SPACE_CHAR, " ")


## llama_logic.py
@jax.jit
def layer_norm(x, weight):
  # ASSUMPTION: layer norm is axis=-1
  # ASSUMPTION: we dont need to add eta to the std in this divide
  x = weight * (x - jnp.mean(x, axis=-1, keepdims=True)) / jnp.std(x, axis=-1, keepdims=True)
  return x


# TODO for some reason, it is re-jitting functions every time a token is generated. fix this
@jax.jit
def self_attention_layer(layer_params: LangModelSelfAttentionLayer, xBTC):
  # input layernorm
  xBTC = layer_norm(xBTC, layer_params.input_layernorm_weight)

  # Reshape input into attention heads
  # xBTC => xBHTd
  B, T, C  = xBTC.shape
  H_Q = 32 # TODO replace the hardcoding
  H_KV = 8 # GQA kv-heads

  Q = xBTC @ jnp.transpose(layer_params.self_attn_q_proj_weight)  # (BTC) @ (d, d_k) => (B, T, d_k)
  K = xBTC @ jnp.transpose(layer_params.self_attn_k_proj_weight) # (BTC) @ (d, d_k) => (B, T, d_k)
  V = xBTC @ jnp.transpose(layer_params.self_attn_v_proj_weight) # (BTC) @ (d, d_v) => (B, T, d_v)
  # attention heads and KV-groups are introduced at the QKV stage
  Q = jnp.reshape(Q, (B, H_Q, T, Q.shape[-1]//H_Q)) # (B, T, d_k) => (B, H, T, d_k//H_Q)
  K = jnp.reshape(K, (B, H_KV, T, K.shape[-1]//H_KV)) # (B, T, d_k) => (B, G, T, d_k//H_KV)
  V = jnp.reshape(V, (B, H_KV, T, V.shape[-1]//H_KV)) # (B, T, d_v) => (B, G, T, d_v//H_KV)
  Kt = jnp.swapaxes(K, 2, 3)  # (B, H, T, d_k) => (B, H, d_k//H, T)
  d_k = Q.shape[-1]
  # Compute attention scores. H = H_Q, h = H_KV. h is smaller so is broadcast
  attention_scores = jax.nn.softmax(jnp.einsum("BHTd,Bhdt->BHTt", Q, Kt) / jnp.sqrt(d_k))  # (B,H_Q,T,d_k//H_Q) @ (B,H_KV,T,d_K//H_KV) => (B, H_Q, T, T)
  Z = jnp.einsum("BHTT,BhTd->BHTd", attention_scores, V)   # (B,H,T,T) @ (B,H,T,d_v//H_KV) => (B, H, T, d_v//H_KV)

  # reshape back into xBTC_residual
  Z = jnp.reshape(Z, (B, T, Z.shape[-1]*H_Q))  # (B, H, T, d_v//H_KV) => (B, T, d_v)

  # project BHTd_v back to BHTd
  xBTC_residual = Z @ layer_params.self_attn_o_proj_weight # (B, T, d_v) @ (d_v, d) => B, T, d   i.e. (B,T,C)

  # layer norm
  xBTC_residual = layer_norm(xBTC_residual, layer_params.post_attention_layernorm_weight)

  # feed forward w SwiGLU
  # https://arxiv.org/pdf/2002.05202
  # ASSUMPTION: for ffn, its down(silu(gate(up(x)))), not silu(down(gate(up(x))))
  x1 = xBTC_residual @ jnp.transpose(layer_params.mlp_up_proj_weight)
  x2 = jax.nn.swish(xBTC_residual @ jnp.transpose(layer_params.mlp_gate_proj_weight))
  xBTC_residual = (x1*x2) @ jnp.transpose(layer_params.mlp_down_proj_weight)

  # skip connection
  xBTC = xBTC + xBTC_residual
  return xBTC


def embed_tokens(lang_model_params: LangModel, batch_tokens):
  vocab_size = lang_model_params.lm_head_weight.shape[0]
  one_hot_tokens = jax.nn.one_hot(batch_tokens, vocab_size, axis=-1)
  token_embeddings = one_hot_tokens @ lang_model_params.lm_head_weight
  return token_embeddings


@functools.partial(jax.jit, static_argnames=["temp"])
def text_forward(model_params: LlamaParams, context_tokens: Tokens, temp: float):
  ### TEXT EMBEDDINGS
  xBTC_text = embed_tokens(model_params.language_model, context_tokens)
  xBTC = xBTC_text

  ### TRANSFORMER
  # iterate over attention layers
  # replacing for loops w scans reduces compile time and memory from the jitted compute graph
  # set up the scan
  def scan_fn(xBTC, layer_params):
    xBTC = self_attention_layer(layer_params, xBTC)
    return xBTC, None
  # do the scan
  xBTC, _ = jax.lax.scan(scan_fn, xBTC, model_params.language_model.model.self_attention_layers)

  # layernorm and project to logits
  xBTC = layer_norm(xBTC, model_params.language_model.model.norm_weight)
  yBTC = xBTC @ jnp.transpose(model_params.language_model.lm_head_weight)

  # logits => logprobs
  # conditional branching is fine in jax.jit if the conditional is static
  if temp == 0:
    yBTC_logprobs = jax.nn.log_softmax(yBTC, axis=-1)
  else:
    # ASSUMPTION: 1e-7 is not too large of an eta in the output of logprobs
    yBTC_logprobs = jax.nn.log_softmax(yBTC/(temp + 1e-7), axis=-1)

  return yBTC_logprobs


## inference_utils.py
# TODO make sure all ops are bfloat16 or float16
# TODO for training DEFINITELY make sure all ops are bfloat16
@functools.partial(jax.jit, static_argnames=["temp"]) # sadly, doesn't work bc of strings.
def inference(
    model_params: LlamaParams,
    context_tokens: Tokens,
    temp: float,
    key: jax.Array) -> Token:
  # text -> tokens
  # batch[tokens] -> batch[tokens]  # fake batch of only 1
  output_logprobs = text_forward(model_params, context_tokens[jnp.newaxis, ...], temp)

  # sample last logprob (jax.nn.categorical or whatever it was)
  final_token_logprobs = output_logprobs[0][-1] # (B, T, logprob) => (logprob,)
  final_token_probs = jnp.exp(final_token_logprobs)
  output_token = jrand.categorical(key, final_token_probs)

  # convert tokens to text
  return output_token


if __name__ == "__main__":
  # stand-ins for load_model_params(paths) and load_tokenizer('Llama/tokenizer.json')
  C, F, L = 64, 96, 2
  chars = list("abcdefghijklmnopqrstuvwxyzW?" + BPE_SPACE_CHAR)
  tokenizer = Tokenizer(vocab={ch: i for i, ch in enumerate(chars)}, merges={})
  V = len(chars)
  ks = jrand.split(jrand.PRNGKey(123), 8)
  w = lambda k, *shape: 0.2 * jax.random.normal(k, shape)
  layers = LangModelSelfAttentionLayer(
      input_layernorm_weight=jnp.ones((L, C)),
      mlp_down_proj_weight=w(ks[0], L, C, F),
      mlp_gate_proj_weight=w(ks[1], L, F, C),
      mlp_up_proj_weight=w(ks[2], L, F, C),
      post_attention_layernorm_weight=jnp.ones((L, C)),
      self_attn_k_proj_weight=w(ks[3], L, 16, C),
      self_attn_o_proj_weight=w(ks[4], L, C, C),
      self_attn_q_proj_weight=w(ks[5], L, C, C),
      self_attn_v_proj_weight=w(ks[6], L, 16, C),
  )
  llama_params = LlamaParams(language_model=LangModel(
      lm_head_weight=w(ks[7], V, C),
      model=LangModelModel(norm_weight=jnp.ones((C,)), self_attention_layers=layers,
                           cross_attention_layers=[])))

  handed_keys = []  # harness: record the key handed to every inference call
  _inference = inference
  def inference(model_params, context_tokens, temp, key):
    handed_keys.append(jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key)
    return _inference(model_params, context_tokens, temp, key)

  # inference.py, as written (100 tokens there)
  rolling_key = jrand.PRNGKey(int(7/(7_7)/7))
  prompt = "What is the capital of france?"
  temp = 0
  print(f"Prompt: \"{prompt}\"")

  answer = ""
  # inference loop
  start = time.time()
  for i in range(6):
    context = prompt + answer
    context_tokens = jnp.array(encode(tokenizer, context))
    next_token = inference(llama_params, context_tokens, temp, rolling_key)
    if i == 0:
      print(f"jitted in {time.time() - start:0.2f}s")
    next_chunk = decode(tokenizer, jnp.array([next_token]))
    answer += next_chunk
    print(str(next_chunk), end="")
    rolling_key, _ = jrand.split(rolling_key, 2)  # expect: JIT502
    #if next_token == "<end token>":
    #  break # TODO add actual end token to inference loop

  print("\nFinal output:")
  print("--------------")
  print(context)

  # observed: line 266 makes each next key by splitting the key the token was just drawn from:
  # the next key is split(last key)[0], and the first Gumbel bits of the last draw are the XOR
  # of its two words
  assert len(handed_keys) == 6
  for k_t, k_next in zip(handed_keys, handed_keys[1:]):
    assert jnp.array_equal(k_next, jrand.split(k_t)[0])
    assert jrand.bits(k_t, (V,))[0] == k_next[0] ^ k_next[1]
  print("every next key is tied to the draw made from the key before it")
