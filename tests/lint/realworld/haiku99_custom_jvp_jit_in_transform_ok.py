# source: https://github.com/google-deepmind/dm-haiku/issues/99 (the example in the
#   description)
# observed on jax 0.10.2 CPU: runs clean with tracer-leak checking on: the jitted call of
#   a custom_jvp function inside hk.transform_with_state's init no longer leaks a trace
#   (the JAX problem of the thread is fixed); init returns empty params and state. The
#   reporter's `export JAX_CHECK_TRACER_LEAKS=1` is set through jax.config.
# gap: exemption-vs-JAX
import haiku as hk
import jax

jax.config.update("jax_check_tracer_leaks", True)

@jax.custom_jvp
def t(y):
    return y

def t_jvp(primals, tangents):
    assert False

t.defjvp(t_jvp)

@jax.jit
def s(y):
    return t(y)

def f():
    return s(0.0)

transformed = hk.transform_with_state(f)
transformed.init(None)

if __name__ == "__main__":
    params, state = transformed.init(None)
    assert params == {} and state == {}
