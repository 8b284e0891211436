# source: https://github.com/Quantum-OCS/QuOCS/issues/44
# observed on jax 0.10.2 CPU: TracerArrayConversionError: np.sin is NumPy and t is traced
#   (QuOCS evaluates the initial-guess lambda under jit). Added: the imports, the lambda
#   from the settings string written as code, and jax.jit standing in for QuOCS's AD
#   optimizer that traces it.
# gap: types
import jax
import jax.numpy as jnp
import numpy as np

initial_guess = lambda t: 0.0 + np.sin(t)  # expect: JIT402

jax.jit(initial_guess)(jnp.linspace(0.0, 1.0, 100))
