# source: https://github.com/GalacticDynamics/galax/pull/692 (src/galax/potential/_src/
#   builtin/nfw.py after commit 7d27b80, LeeSutoTriaxialNFWPotential.__check_init__)
# observed on jax 0.10.2 CPU: with equinox 0.13.8, the fixed check,
#   `jnp.logical_or(a1 < a2, a2 < a3)` handed to `eqx.error_if`, runs clean when the
#   potential is built eagerly and when it is built inside `jax.jit` (the PR's new test);
#   under jit the check is staged into the computation instead of asking Python for a
#   bool. Stand-ins: galax's `ConstantParameter` (its `__call__` is `jax.jit`-ed and
#   returns the value, as here), `u.Quantity(0.0, "Myr")` as a plain array, and only the
#   fields `__check_init__` reads (the units, constants and `_potential` are left out);
#   imports are added. The jitted driver follows the PR's test, returning a field instead
#   of evaluating the potential.
# gap: exemption-vs-JAX
from functools import partial
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp


class ConstantParameter(eqx.Module):
    value: jax.Array = eqx.field(converter=jnp.asarray)

    @partial(jax.jit, static_argnames=("ustrip",))
    def __call__(self, t=None, *, ustrip=None, **__: Any):
        return self.value


class LeeSutoTriaxialNFWPotential(eqx.Module):
    m: ConstantParameter = eqx.field(converter=ConstantParameter)
    r_s: ConstantParameter = eqx.field(converter=ConstantParameter)
    a1: ConstantParameter = eqx.field(converter=ConstantParameter, default=1.0)
    a2: ConstantParameter = eqx.field(converter=ConstantParameter, default=1.0)
    a3: ConstantParameter = eqx.field(converter=ConstantParameter, default=1.0)

    def __check_init__(self) -> None:
        t = jnp.asarray(0.0)
        _ = eqx.error_if(
            t,
            jnp.logical_or(self.a1(t) < self.a2(t), self.a2(t) < self.a3(t)),
            f"a1 {self.a1(t)} >= a2 {self.a2(t)} >= a3 {self.a3(t)} is required",
        )


pot = LeeSutoTriaxialNFWPotential(m=1e11, r_s=15, a1=1, a2=0.9, a3=0.8)


@jax.jit
def init_potential_evaluate() -> None:
    inner_pot = LeeSutoTriaxialNFWPotential(
        m=pot.m.value, r_s=pot.r_s.value, a1=pot.a1.value, a2=pot.a2.value, a3=pot.a3.value
    )
    return inner_pot.m.value


if __name__ == "__main__":
    assert init_potential_evaluate() == pot.m.value
