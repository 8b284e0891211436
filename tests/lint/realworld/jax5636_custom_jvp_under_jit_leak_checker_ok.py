# source: https://github.com/jax-ml/jax/issues/5636
# observed on jax 0.10.2 CPU: runs clean with the tracer leak checker on (the report set
#   JAX_CHECK_TRACER_LEAKS=1; here jax.config.update does the same): s(0.0) returns 0.0 and
#   no "Leaked trace" is raised. The leak the checker reported in 2021 was JAX's own
#   memoization, fixed since. t_jvp is never called, as nothing differentiates s.
# gap: exemption-vs-JAX
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

s(0.0)

if __name__ == "__main__":
    assert float(s(0.0)) == 0.0
    assert float(s(2.5)) == 2.5
