# source: https://github.com/jax-ml/jax/pull/20080 (the test script in the description)
# observed on jax 0.10.2 CPU: without the checker, f(0) silently draws the same bits twice:
#   vals2 equals vals1, so f returns 2 * vals1. With the key-reuse checker on
#   (`jax.debug_key_reuse(True)`, the current spelling of the script's
#   `jax_enable_key_reuse_checks`), jit(f)(0) raises KeyReuseError "In random_bits,
#   argument 0 is already consumed", traced back to the second draw. The script's global
#   `jax.config.update(...)` is moved into the __main__ block as a context manager so that
#   the module runs; the __main__ checks are added.
# gap: other
import jax

def f(seed):
    key = jax.random.key(seed)
    vals1 = jax.random.bits(key)
    vals2 = jax.random.bits(key)  # expect: JIT502
    return vals1 + vals2

jax.jit(f)(0)


if __name__ == "__main__":
    import traceback

    # observed: line 15 draws the same bits as the line before it
    once = jax.random.bits(jax.random.key(0))
    assert jax.jit(f)(0) == once + once
    with jax.debug_key_reuse(True):
        try:
            jax.jit(f)(1)
        except jax.errors.KeyReuseError as e:
            cause = e.__cause__
            frames = [fr for fr in traceback.extract_tb(cause.__traceback__)
                      if fr.filename == __file__]
            assert frames[-1].lineno == 15, frames
        else:
            raise AssertionError("no KeyReuseError")
