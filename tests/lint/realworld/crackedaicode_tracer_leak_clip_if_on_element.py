# source: https://crackedaicode.com/problems/jax-tracer-leak-detection
#   (a JAX exercise page, "Tracer Leak Detection": its worked mini-example, three versions
#   of a clip-negatives-to-zero function)
# observed on jax 0.10.2 CPU: jax.jit(clip_v1) raises TracerBoolConversionError at
#   `if x[0] < 0:` and jax.jit(clip_v2) at `if x[i] < 0:` (its `range(len(x))` is fine:
#   the length is static); jax.jit(clip_v3) returns [0, 2, 0]. The page says v1 and v2
#   raise under jax.jit but does not call them. Added: the input and the __main__ block.
# gap: other
import jax
import jax.numpy as jnp
# ❌ Tracer leak — Python `if` on a traced value
def clip_v1(x):
    result = x
    if x[0] < 0: # error: bool conversion of tracer  # expect: JIT101
        result = result.at[0].set(0)
    return result
# ❌ Index-based loop is also a leak under jit
def clip_v2(x):
    for i in range(len(x)):
        if x[i] < 0:  # expect: JIT101
            x = x.at[i].set(0)
    return x
# ✅ Vectorized & jit-safe
def clip_v3(x):
    return jnp.where(x < 0, 0, x)
# Equivalent: jnp.maximum(x, 0)

if __name__ == "__main__":
    import traceback

    x = jnp.array([-1.0, 2.0, -3.0])

    def raising_line(fn):
        try:
            jax.jit(fn)(x)
        except jax.errors.TracerBoolConversionError as e:
            frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
            return frames[-1].lineno
        raise AssertionError("no error")

    # observed: line 14 raises TracerBoolConversionError under jit
    assert raising_line(clip_v1) == 14
    # observed: line 20 raises TracerBoolConversionError under jit
    assert raising_line(clip_v2) == 20
    assert jnp.array_equal(jax.jit(clip_v3)(x), jnp.array([0.0, 2.0, 0.0]))
