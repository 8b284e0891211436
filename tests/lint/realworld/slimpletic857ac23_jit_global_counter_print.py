# source: https://github.com/joshuacoles/slimpletic-jax/blob/857ac23d734db056da74db34e9e72bca6db32647/test_cases/grad_behaviour.py
# observed on jax 0.10.2 CPU: under jit(f) the global counter increment and the prints run only while tracing: three calls of jf leave counter at 1 and print "Called 1 times" once, with tracers printed for x and y
# gap: other
# observed: line 19 the global write runs once at trace time: after three calls of jf the counter is 1, not 3
# observed: line 21 printed once (at trace time) for three jf calls
# observed: line 22 printed once, showing a tracer instead of the value of x
# observed: line 23 printed once, showing a tracer instead of the value of y
# observed: line 24 printed once for three jf calls
# added: the module-level calls moved under __main__ with stdout captured and checked; the grad-only half of the script kept as written
import contextlib
import io

from jax import grad, jit

counter = 0

def f(x, y):
    global counter
    counter += 1  # expect: JIT202

    print("Called {} times".format(counter))  # expect: JIT203
    print("x: ", x)  # expect: JIT203
    print("y: ", y)  # expect: JIT203
    print()  # expect: JIT203
    return x + y

if __name__ == "__main__":
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("JIT Example")
        jf = jit(f)
        jf(1.0, 2.0)
        jf(2.0, 2.0)
        jf(2.0, 2.0)
    out = buf.getvalue()
    print(out)
    assert counter == 1, counter
    assert out.count("Called") == 1 and "Tracer" in out, out

    grad(jf, argnums=(0,))(1.0, 2.0)

    print("\n")

    print("GRAD Example")
    ff = grad(f, argnums=(0,))
    ff(1.0, 2.0)
    ff(1.0, 2.0)
    ff(3.0, 2.0)
    print("counter after 3 jitted calls was 1; final counter", counter)
