# source: https://github.com/1040403998/JAX-/blob/dbde7a803ad41fa3b7bcb7f6c4d7774d86fd97d0/chapter05/%E4%BB%A3%E7%A0%81%E7%A4%BA%E4%BE%8B5.4.py (source code of the Chinese book 《JAX可微分编程》, code example 5.4 "即时编译")
# observed on jax 0.10.2 CPU: as the author's comments say, the jitted f increments the global a and prints only while tracing: three calls give [2 3 4] each and leave a == 1; after the reshape call retraces (a == 2) the cached int32[3] executable still adds the traced 1
# gap: other
# (added: the __main__ block; the author's output comments are kept as written (the reshape call actually prints [[[3 4 5]]]))
import contextlib
import io

import jax 
import jax.numpy as jnp

""" 不进行即时编译 """
a = 0
def f(x):
    global a
    a += 1
    print("function f is called, ", end="")
    return x + a

x = jnp.array([1,2,3])
print("f(x) = ", f(x)) # function f is called, f(x) =  [2 3 4]
print("f(x) = ", f(x)) # function f is called, f(x) =  [3 4 5]
print("f(x) = ", f(x)) # function f is called, f(x) =  [4 5 6]
print("a =", a) # a = 3


""" 使用 jax.jit 进行即时编译 """
a = 0
@jax.jit
def f(x):
    global a
    a += 1  # expect: JIT202
    print("function f is called, ", end="")  # expect: JIT203
    return x + a  # expect: JIT201

x = jnp.array([1,2,3])
print("f(x) = ", f(x)) # function f is called, f(x) =  [2 3 4]
print("f(x) = ", f(x)) # [2 3 4]
print("f(x) = ", f(x)) # [2 3 4]
print("a =", a)  # a = 1
print("f(x) = ", f(x.reshape(1,1,-1))) # function f is called, f(x) =  2
print("a =", a)  # a = 2


if __name__ == "__main__":
    def call_and_capture(arg):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            out = f(arg)
        return out, buf.getvalue().count("function f is called")

    # observed: line 31 the global write runs once per trace, not once per call: three calls on int32[3] left a == 1, the reshape retrace made it 2, and further cached calls leave it at 2
    assert a == 2, a
    for _ in range(3):
        f(x)
    assert a == 2, a

    # observed: line 32 the print runs only while tracing: no output on cached calls, one line when a new shape (float32[5]) is traced
    _, n_cached = call_and_capture(x)
    assert n_cached == 0
    _, n_new = call_and_capture(jnp.zeros(5))
    assert n_new == 1
    _, n_again = call_and_capture(jnp.zeros(5))
    assert n_again == 0

    # observed: line 33 a is 3 now, yet the executable compiled for int32[3] keeps the traced a == 1 and returns x + 1 = [2 3 4] instead of x + a = [4 5 6]
    assert a == 3, a
    out = f(x)
    assert (out == x + 1).all(), out
    assert not (out == x + a).all()
    print("\nOK: global write once per trace, print once per trace, stale global read")
