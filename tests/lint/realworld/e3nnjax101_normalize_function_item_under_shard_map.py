# source: https://github.com/e3nn/e3nn-jax/pull/101 (the reproducer of the description, and
#   normalize_function/normalspace as in e3nn_jax/_src/activation.py at 04e761c)
# observed on jax 0.10.2 CPU: jit(foo) and the pmap version run, but under jax.shard_map
#   `c = c.item()` raises ConcretizationTypeError: jax.ensure_compile_time_eval() does not
#   make the constant computation concrete inside shard_map, so `c` is a tracer there.
#   The two library functions are copied in (their docstrings shortened) instead of
#   importing e3nn_jax, which is not installed; the jit call and the check of the failing
#   line in the reproducer's `except` are added. Were `c` still a tracer, the `if` on
#   jnp.allclose(c, 1.0) would raise next.
# gap: exemption-vs-JAX
import os
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["XLA_FLAGS"] = " --xla_force_host_platform_device_count=2"

import traceback
from functools import partial
from typing import Callable

import jax, jax.numpy as jnp
import jax.scipy.special as jsp
from jax import lax, pmap


def normalspace(n: int) -> jax.Array:
    r"""Sequence of normally distributed numbers."""
    return jnp.sqrt(2) * jsp.erfinv(jnp.linspace(-1.0, 1.0, n + 2)[1:-1])


def normalize_function(phi: Callable[[float], float]) -> Callable[[float], float]:
    r"""Normalize a function, :math:`\psi(x)=\phi(x)/c`."""
    with jax.ensure_compile_time_eval():
        # k = jax.random.PRNGKey(0)
        # x = jax.random.normal(k, (1_000_000,))
        x = normalspace(1_000_001)
        c = jnp.mean(phi(x) ** 2) ** 0.5
        c = c.item()  # expect: JIT401

        if jnp.allclose(c, 1.0):  # tolerate: JIT101
            return phi
        else:

            def rho(x):
                return phi(x) / c

            return rho


mesh = jax.sharding.Mesh(jax.devices()[:2], ("i",))
P = jax.sharding.PartitionSpec


def foo(x):
    act = normalize_function(jax.nn.silu)
    return jnp.sum(act(x))

# pmap: works
@partial(pmap, axis_name="i")
def pmap_ok(x):
    return foo(lax.all_gather(x, "i").reshape(-1))

print("pmap:", pmap_ok(jnp.ones((2, 4))))

# shard_map: fails
@partial(jax.shard_map, mesh=mesh, in_specs=(P("i"),), out_specs=P(), check_vma=False)
def shard_map_fail(x):
    return foo(lax.all_gather(x, "i").reshape(-1))


if __name__ == "__main__":
    print("jit:", jax.jit(foo)(jnp.ones(8)))
    try:
        print("shard_map:", shard_map_fail(jax.device_put(jnp.ones((2, 4)), jax.sharding.NamedSharding(mesh, P("i")))))
    except jax.errors.ConcretizationTypeError as e:
        print(f"shard_map FAILS: {type(e).__name__}: {str(e)[:120]}...")
        lines = [f.lineno for f in traceback.extract_tb(e.__traceback__)
                 if f.filename == os.path.abspath(__file__)]
        # observed: line 36 raises under shard_map
        assert lines[-1] == 36, lines
    else:
        raise AssertionError("shard_map ran")
