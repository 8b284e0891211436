# source: https://github.com/patrick-kidger/equinox/issues/1089 (the MVP in the description)
# observed on jax 0.10.2 CPU with equinox 0.13.8: the jitted call raises ValueError:
#   Non-hashable static arguments are not supported (the static half of the partitioned
#   module holds the dict field, and hashing the Module hashes it); the MVP catches it and
#   prints the failure. Added: the __main__ block; the stored copy of the thread breaks
#   off inside the second except clause, completed like the first one.
# gap: static-hashability
import sys
import jax
import equinox as eqx

print(f"Version of Python:  {sys.version}")
print(f"Version of Equinox: {eqx.__version__}")
print(f"Version of JAX:     {jax.__version__}")

class Problematic(eqx.Module):
    nested: dict

    def __init__(self, nested):
        self.nested = nested

    def __call__(self):
        return 1.0


model = Problematic({0: 0.0})


try:
    _ = model()
    print("Calling the model directly succeeded.")
except Exception as exception:
    print("Calling the model directly failed:")
    print(exception)


def merge(parameters, static):
    return eqx.combine(parameters, static)()

arr, static = eqx.partition(model, eqx.is_array)

try:
    _ = jax.jit(merge, static_argnames="static")(arr, static)  # expect: JIT302
    print("Calling the model after filtering and jitting succeeded.")
except Exception as exception:
    print("Calling the model after filtering and jitting failed:")
    print(exception)


if __name__ == "__main__":
    try:
        jax.jit(merge, static_argnames="static")(arr, static)  # tolerate: JIT302
    except ValueError as e:
        # observed: line 43 passes the static half, holding a dict, as a static argument
        assert "Non-hashable static arguments" in str(e)
    else:
        raise AssertionError("no error")
