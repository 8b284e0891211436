# source: https://github.com/jax-ml/jax/issues/13351
# observed on jax 0.10.2 CPU: `jax.lax.switch(0, functions_list)` prints "a", "b" and "c":
#   switch traces every branch, so each print runs once, at trace time, whichever index is
#   chosen; a second identical call hits the cache and prints nothing, not even the "a" of
#   the selected branch. The reporter expected only "a". Added: the __main__ check.
# gap: other
import jax

def fun_a():
    print('a')  # expect: JIT203
    
def fun_b():
    print('b')  # expect: JIT203
    
def fun_c():
    print('c')  # expect: JIT203

functions_list=[fun_a,fun_b,fun_c]

jax.lax.switch(0,functions_list)


if __name__ == "__main__":
    import contextlib
    import io

    jax.clear_caches()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.lax.switch(0, functions_list)
    # observed: line 13 and line 16 print although branch 0 is selected
    assert out.getvalue().split() == ["a", "b", "c"], out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.lax.switch(0, functions_list)
    # observed: line 10 prints nothing on the second call of the selected branch
    assert out.getvalue() == "", out.getvalue()
