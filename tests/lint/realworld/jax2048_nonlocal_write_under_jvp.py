# source: https://github.com/jax-ml/jax/issues/2048 (the reduced example in the description)
# observed on jax 0.10.2 CPU: `x = y` in inner stores the inner jvp's tracer into f's
#   variable x (nonlocal); after the inner jvp returns, `D(inner, x)*x` uses the escaped
#   tracer and JAX raises UnexpectedTracerError (at the time: "Can't lift Traced..."). The
#   description's call `D(f, 1.0)` is made in the __main__ block, where the error is caught
#   and checked.
# gap: stale-state-attributes
import jax

def D(f, x):
    return jax.jvp(f, (x,), (1.0,))[1]

def f(x):
    def inner(y):
        nonlocal x
        x = y  # expect: JIT202
        return x
    return D(inner, x)*x

if __name__ == "__main__":
    # observed: line 16 leaks the inner jvp's tracer through the nonlocal x
    try:
        D(f, 1.0) # Exception: Can't lift Traced<ConcreteArray(1.0)>with<JVPTrace(level=4/0)> to JVPTrace(level=3/0)
    except jax.errors.UnexpectedTracerError as e:
        assert "escape" in str(e)
    else:
        raise AssertionError("no error")
