# source: https://github.com/rayanramoul/llama3_jax/blob/dc5df20df0a1b4651255c43bf798cdcd8838f8fe/src/llama3_jax/utils/weights.py
#   (a learner's Llama 3 written from scratch in JAX: the parameter initialisation)
# observed on jax 0.10.2 CPU: transformer_block_weights splits `key` into two subkeys and
#   then draws both RMSNorm weights from `key` itself: a consumed key reused, twice, so
#   attention_norm and ffn_norm are the same vector in every block. init_ffn_layer_weights
#   splits its key into two but reads keys[2]: JAX clamps the out-of-range index to keys[1],
#   so w3 is drawn from the key of w2 and w3.ravel() == 2 * w2.ravel() (the same normals,
#   scaled by 1/sqrt(dim) instead of 1/sqrt(4 * dim)). With typed keys and
#   `jax_debug_key_reuse` on, w3's draw raises KeyReuseError first (__main__); with w3
#   given a key of its own, the checker stops at the attention_norm draw instead.
# gap: other
# added: the __main__ block, which builds the parameters with the repository's default
#   model config (configs/model/default.yaml: dim 256, 6 layers, 8 heads, 4 kv heads) and
#   the vocab_size=76 of train.py, with its print calls silenced.
import math
import jax


def init_weights(
    random_key: jax.Array, shape: tuple[int], scale: float = None
) -> jax.Array:
    # calculate default scale if none
    if not scale:
        scale = 1.0 / math.sqrt(shape[0])
    print("Type of random key:", type(random_key))
    weights = jax.random.normal(random_key, shape) * scale  # tolerate: JIT502
    print("Type of weights:", type(weights))
    return weights


def init_attention_layer_weights(
    key: jax.Array, dim: int, number_heads: int, number_kv_heads: int
) -> dict[str, jax.Array]:
    # 4 keys one for each of: key, query, value, output
    keys = jax.random.split(key, 4)
    print(f"Keys: {keys}")
    head_dim = dim // number_heads
    weights = {
        "wq": init_weights(keys[0], (dim, number_heads, head_dim)),
        "wk": init_weights(keys[1], (dim, number_kv_heads, head_dim)),
        "wv": init_weights(keys[2], (dim, number_kv_heads, head_dim)),
        "wo": init_weights(keys[3], (dim, number_heads, head_dim)),
    }
    return weights


def init_ffn_layer_weights(key: jax.Array, dim: int) -> dict[str, jax.Array]:
    keys = jax.random.split(key)
    return {
        "w1": init_weights(keys[0], (dim, 4 * dim)),  # first projection
        "w2": init_weights(keys[1], (4 * dim, dim)),  # second projection
        "w3": init_weights(keys[2], (dim, 4 * dim)),  # first projection  # expect: JIT502
    }


def transformer_block_weights(
    key: jax.Array, dim: int, number_heads: int, number_kv_heads: int
) -> dict[str, dict[str, jax.Array] | jax.Array]:
    keys = jax.random.split(key, 2)
    return {
        "attention": init_attention_layer_weights(
            keys[0], dim, number_heads, number_kv_heads
        ),
        "ffn": init_ffn_layer_weights(keys[1], dim),
        "attention_norm": init_weights(
            key, (dim,), scale=1.0  # expect: JIT502
        ),  # Pre-attention normalization
        "ffn_norm": init_weights(key, (dim,), scale=1.0),  # Pre-ffn normalization  # expect: JIT502
    }


def init_model_parameters(
    key: jax.Array,
    vocab_size: int,
    dim: int,
    number_layers: int,
    number_heads: int,
    number_kv_heads: int,
) -> dict[str, jax.Array | list[dict[str, dict[str, jax.Array] | jax.Array]]]:
    keys = jax.random.split(key, 4)
    params = {
        "token_embedding": init_weights(keys[0], (vocab_size, dim)),
        "norm_f": init_weights(keys[1], (dim,), scale=1.0),  # Final normalization
        "output": init_weights(keys[2], (dim, vocab_size)),
    }
    # initialize transformer blocks
    transformers_blocks_keys = jax.random.split(keys[3], number_layers)
    params["transformer_blocks"] = [
        transformer_block_weights(key, dim, number_heads, number_kv_heads)
        for key in transformers_blocks_keys
    ]
    return params


if __name__ == "__main__":
    import contextlib
    import io

    import jax.numpy as jnp

    with contextlib.redirect_stdout(io.StringIO()):
        params = init_model_parameters(
            jax.random.PRNGKey(0), vocab_size=76, dim=256, number_layers=6,
            number_heads=8, number_kv_heads=4,
        )
    for block in params["transformer_blocks"]:
        # observed: line 66 and line 68 draw from the same consumed key: equal norm weights
        assert bool((block["attention_norm"] == block["ffn_norm"]).all())
        ffn = block["ffn"]
        # observed: line 52 keys[2] is clamped to keys[1]: w3 repeats w2's normals
        assert bool(jnp.allclose(ffn["w3"].ravel(), 2 * ffn["w2"].ravel(), rtol=1e-5))
    assert not bool((params["transformer_blocks"][0]["attention_norm"]
                     == params["transformer_blocks"][1]["attention_norm"]).all())

    jax.config.update("jax_debug_key_reuse", True)
    import traceback
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            transformer_block_weights(jax.random.key(0), 256, 8, 4)
        raise AssertionError("the reused key was not detected")
    except jax.errors.KeyReuseError as e:
        # observed: line 52 the checker stops at w3's draw from keys[1] again (innermost
        # frame: the draw in init_weights, line 26)
        lines = [fr.lineno for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert 52 in lines and lines[-1] == 26, lines
        assert "Previously-consumed key" in str(e), e
