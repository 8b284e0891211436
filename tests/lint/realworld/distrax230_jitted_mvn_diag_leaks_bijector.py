# source: https://github.com/google-deepmind/distrax/issues/230 (the reporter's example)
# observed on jax 0.10.2 CPU with distrax 0.1.9: `jitted_cat()` returns cleanly; `jitted_mvn()`
#   raises "Exception: Leaked trace DynamicJaxprTrace": the MultivariateNormalDiag built in
#   the trace holds a DiagLinear bijector that binds `self.forward = self._bijector.forward`
#   (and the other methods) in `__init__` (the cause named in distrax#290); Jittable keeps
#   those bound methods as pytree auxiliary data, so the distribution the jitted function
#   returns carries the ScalarAffine's traced `_scale` and `_inv_scale` out of the trace.
#   Without `jax_check_tracer_leaks`, calling `.log_prob` on the returned distribution raises
#   UnexpectedTracerError.
# gap: stale-state-attributes
# unverifiable: needs distrax, which the test extra does not install (verified when collected, on jax 0.10.2 with distrax installed)
import jax
import distrax
import jax.numpy as jnp

jax.config.update("jax_check_tracer_leaks", True)

jitted_cat = jax.jit(lambda: distrax.Categorical(logits=jnp.zeros(1)))
jitted_mvn = jax.jit(lambda: distrax.MultivariateNormalDiag(loc=jnp.zeros(1)))  # tolerate: JIT202

print("Creating jitted categorical distribution")
jitted_cat()
print("Creating jitted multivariate normal distribution")
jitted_mvn()  # expect: JIT202
