# source: https://github.com/jax-ml/jax/issues/38460
# observed on jax 0.10.2 CPU: `brk` is jitted and reads the module-level list `foo`, which
#   `fn` fills with its argument and clears again. `jax.eval_shape(fn, ...)` traces `fn`, so
#   `foo.append(x)` stores a tracer of that trace in the global list and `brk` is traced with
#   it baked in as a constant; jit's cache does not key on `foo`, so the later plain call
#   `fn(jnp.array([1.0]))` hits that cache entry and raises UnexpectedTracerError at
#   `out = brk(x)`. The two module-level calls of the report run in the `__main__` block,
#   where the error is caught and checked.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

foo = []

@jax.jit
def brk(token):
    [x] = foo  # expect: JIT201
    return jnp.concatenate([token, x])

def fn(x):
    foo.append(x)  # expect: JIT202
    out = brk(x)
    foo.clear()
    return out


if __name__ == "__main__":
    import traceback

    jax.eval_shape(fn, jnp.array([1.0]))
    try:
        fn(jnp.array([1.0]))
    except jax.errors.UnexpectedTracerError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        assert frames[-1].lineno == 22, frames
    else:
        raise AssertionError("expected UnexpectedTracerError")
    # observed: line 17 is traced once, with the tracer that line 21 put in `foo` under
    # observed: eval_shape; the cached trace leaks it into the plain call of `fn`, which raises at `brk(x)`
