# source: https://github.com/jax-ml/jax/issues/2273
# observed on jax 0.10.2 CPU: the jitted `assert np.all(np.isfinite(x))` raises
#   TracerBoolConversionError while tracing; the same assert without jit raises the
#   intended AssertionError, and returning the value under jit works. `np` is jax.numpy
#   in the report. The report's three calls are notebook cells, each printing or failing
#   on its own; they run in __main__, each expected error caught and its line checked.
# gap: other
import jax
import jax.numpy as np

a = np.array([1., np.nan, 3.])

@jax.jit
def test_nan_return_jit(x):
    return np.all(np.isfinite(x))



def test_nan_assert_nojit(x):
    assert np.all(np.isfinite(x))



@jax.jit
def test_nan_assert_jit(x):
    assert np.all(np.isfinite(x))  # expect: JIT103


if __name__ == "__main__":
    import traceback

    def raising_line(fn, exc):
        try:
            fn(a)
        except exc as e:
            return [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__][-1]
        raise AssertionError(f"{fn.__name__} did not raise")

    print(test_nan_return_jit(a)) # works (False)
    assert raising_line(test_nan_assert_nojit, AssertionError) == 20
    # observed: line 26 raises TracerBoolConversionError under jit (not the AssertionError)
    assert raising_line(test_nan_assert_jit, jax.errors.TracerBoolConversionError) == 26
