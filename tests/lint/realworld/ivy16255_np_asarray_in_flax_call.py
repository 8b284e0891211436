# source: https://github.com/unifyai/ivy/pull/16255 (the minimal example in the description)
# observed on jax 0.10.2 CPU with flax 0.12.8: TracerArrayConversionError at
#   `x = np.asarray(x)` in TestFlaxLinear.__call__ once the model's apply is traced under
#   jax.jit (the report reached it through ivy's graph compiler). ivy is not installed:
#   its backend set-up and training lines are replaced by model.init and a
#   jax.jit(model.apply) call on the report's test input; the annotation
#   `jaxlib.xla_extension.Device` is spelled `jax.Device` (the module no longer exists).
# gap: other
import jax
import jax.numpy as jnp
import numpy as np
import flax


class TestFlaxLinear(flax.linen.Module):
    out_size: int

    def setup(self):
        self._linear = flax.linen.Dense(self.out_size)

    def __call__(self, x):
        x = np.asarray(x)  # expect: JIT402
        return self._linear(x)
    
class TestFlaxModule(flax.linen.Module):
    in_size: int
    out_size: int
    device: jax.Device = None
    hidden_size: int = 4

    def setup(self):
        self._linear0 = TestFlaxLinear(self.hidden_size)
        self._linear1 = TestFlaxLinear(self.hidden_size)
        self._linear2 = TestFlaxLinear(self.out_size)

    def __call__(self, x):
        x = jnp.expand_dims(x, 0)
        x = jnp.tanh(self._linear0(x))
        x = jnp.tanh(self._linear1(x))
        return jnp.tanh(self._linear2(x))[0]

if __name__ == "__main__":
    test_input = jnp.array([[0.1, 0.2]], dtype="float32")
    model = TestFlaxModule(in_size=2, out_size=1)
    params = model.init(jax.random.PRNGKey(0), test_input)
    jax.jit(model.apply)(params, test_input)
