# source: https://github.com/che-shr-cat/JAX-in-Action/blob/3bae28c730c86d4510bd5b6af456462e22988ba3/Chapter-5/JAX_in_Action_Chapter_5_JIT.ipynb
#   (code cells 45-52 of the "JAX in Action" book's JIT chapter: an impure function under jit)
# observed on jax 0.10.2 CPU: the print runs while impure_function_jit is traced, showing a
#   tracer, and not on the cached calls; `global_state` is read once, at trace time, so after
#   `global_state = 2` impure_function_jit(10) still returns 10 while the plain function
#   returns 20. The notebook's bare display expressions are kept as calls. Added: the imports
#   of its first cell and the __main__ block.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp

global_state = 1

def impure_function(x):
  print(f'Side-effect: printing x={x}')  # expect: JIT203
  y = x*global_state  # expect: JIT201
  return y

impure_function_jit = jax.jit(impure_function)

impure_function_jit(10)

impure_function_jit(10)

impure_function_jit(11)

global_state = 2

impure_function_jit(10)

impure_function(10)

if __name__ == "__main__":
    import contextlib
    import io

    # observed: line 15 prints only while tracing (a tracer), not on later calls
    # observed: line 16 reads global_state at trace time: the jitted call returns 10 after
    # global_state = 2
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        stale = int(impure_function_jit(10))
        again = int(impure_function_jit(12))
    assert out.getvalue() == "", out.getvalue()
    assert stale == 10 and again == 12, (stale, again)
    assert int(impure_function(10)) == 20
