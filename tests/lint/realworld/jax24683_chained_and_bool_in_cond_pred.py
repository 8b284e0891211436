# source: https://github.com/jax-ml/jax/issues/24683
# observed on jax 0.10.2 CPU: f1 (`a < x <= b`, a chained comparison) and f2 (`(x > a) and
#   (x <= b)`) both raise TracerBoolConversionError while their predicate is built: Python's
#   chaining and `and` call bool() on the traced comparison. f3, with `&`, runs and returns
#   999. The three module-level calls of the report are moved into __main__, each error
#   caught and its line checked.
# gap: omnistaging
import traceback

import jax
import jax.numpy as jnp


@jax.jit
def f1(x, a, b):
    return jax.lax.cond(a < x <= b,  # expect: JIT103
                        lambda _: 666, 
                        lambda _: 999, 
                        None)

@jax.jit
def f2(x, a, b):
    return jax.lax.cond((x > a) and (x <= b),  # expect: JIT103
                        lambda _: 666, 
                        lambda _: 999, 
                        None)

@jax.jit
def f3(x, a, b):
    return jax.lax.cond((x > a) & (x <= b), 
                        lambda _: 666, 
                        lambda _: 999, 
                        None)


def _error_line(fn, *args):
    try:
        fn(*args)
    except jax.errors.TracerBoolConversionError as e:
        return [fr.lineno for fr in traceback.extract_tb(e.__traceback__)
                if fr.filename == __file__][-1]
    return None


if __name__ == "__main__":
    x, a, b = jnp.array(1.), 2., 3.
    # observed: line 16 raises TracerBoolConversionError (chained comparison)
    assert _error_line(f1, x, a, b) == 16
    # observed: line 23 raises TracerBoolConversionError (`and`)
    assert _error_line(f2, x, a, b) == 23
    assert int(f3(x, a, b)) == 999
