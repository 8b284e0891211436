# source: https://apxml.com/courses/getting-started-with-jax/chapter-2-accelerating-functions-jit/jit-common-pitfalls
#   (the first example, `condition_on_value`)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `if x > 0`, caught by the page's
#   try/except, which prints it: under jit x is a tracer.
# gap: other
import jax
import jax.numpy as jnp
def condition_on_value(x):
  if x > 0: # Python 'if' checks the concrete value  # expect: JIT101
    return x * 2
  else:
    return x / 2
jitted_condition = jax.jit(condition_on_value)
# This will likely raise an error during tracing
try:
  print(jitted_condition(jnp.array(5.0)))
except Exception as e:
  print(f"Error: {e}")

if __name__ == "__main__":
    import traceback
    # observed: line 9 raises TracerBoolConversionError under jit
    try:
        jitted_condition(jnp.array(5.0))
    except jax.errors.TracerBoolConversionError as e:
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if fr.filename == __file__]
        assert frames[-1].lineno == 9, frames
    else:
        raise AssertionError("no error")
