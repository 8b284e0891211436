# source: https://github.com/jax-ml/jax/issues/14743 (the maintainer's answer: the reporter's
#   `Identity` callable given `__eq__` as well as `__hash__`; `import jax`, `import jax.numpy
#   as jnp` added; the __main__ block, which counts the compilations of `scan`, added)
# observed on jax 0.10.2 CPU: runs clean, and the second `lax.scan` with a new but equal
#   `Identity()` reuses the first one's compiled program: `scan` is compiled once, not twice.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: compiles.append(event)
    if event == "/jax/core/compile/backend_compile_duration" else None)


class Identity():
    def __call__(self, *x):
        return x

    def __hash__(self):
        return 0

    def __eq__(self, other):
        return isinstance(other, Identity)


jax.config.update("jax_log_compiles", True)

s1 = Identity()
s2 = Identity()
assert hash(s1) == hash(s2)
assert s1 == s1

n_before = len(compiles)
_ = jax.lax.scan(s1, None, jnp.arange(3))
n_first = len(compiles)
_ = jax.lax.scan(s2, None, jnp.arange(3))

if __name__ == "__main__":
    assert n_first > n_before
    assert len(compiles) == n_first, compiles
