# source: https://github.com/jax-ml/jax/issues/18937 (the second snippet of the report,
#   without jax_dynamic_shapes)
# observed on jax 0.10.2 CPU: test_this(1.0) raises TypeError "Shapes must be 1D sequences
#   of concrete values of integer type" at jax.numpy.ones([size]): size is traced by jit.
# gap: other
import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platform_name", "cpu")

@jax.jit
def test_this(size):
  return jax.numpy.ones([size]) # <-- size is a float  # expect: JIT404
print(test_this(1.0))
