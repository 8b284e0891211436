# source: https://github.com/apple/axlearn/issues/815
#   (check_numerics and the numeric_checks context manager of axlearn/common/utils.py, as
#   quoted in the issue: "`check_numerics` doesn't work inside `jit`, `pmap`, and `scan`")
# observed on jax 0.10.2 CPU: with numeric checks enabled, check_numerics called from a
#   jitted function raises TracerBoolConversionError at `assert bool(jnp.isfinite(x).all())`
#   (the traced array has no concrete truth value); called eagerly it works. The global
#   flag itself is a trace-time switch by design, and `forward` is first traced inside the
#   `with` block, so no stale flag is involved here.
# gap: cross-module
# added: imports, the `Tensor` alias, and the jitted caller `forward` with its input (the
#   issue's callers are axlearn layers run under jit/scan in other modules).
import contextlib

import jax
from jax import numpy as jnp

Tensor = jnp.ndarray

_enable_numeric_checks = False


@contextlib.contextmanager
def numeric_checks(enabled: bool = True):
    old_state = _enable_numeric_checks

    def switch(value):
        global _enable_numeric_checks  # pylint: disable=global-statement
        _enable_numeric_checks = value
        jax.config.update("jax_debug_nans", value)

    switch(enabled)
    yield
    switch(old_state)


def check_numerics(x: Tensor, msg_fmt: str = "", **msg_kwargs):
    """Checks that all elements in `x` are finite."""
    global _enable_numeric_checks  # pylint: disable=global-statement,global-variable-not-assigned
    if _enable_numeric_checks:
        assert bool(jnp.isfinite(x).all()), f"Check numerics {msg_fmt.format(**msg_kwargs)}: {x}"  # expect: JIT401  # tolerate: JIT103
    return x


@jax.jit
def forward(x):
    return check_numerics(jnp.tanh(x), msg_fmt="layer {name}", name="ffn")


x = jnp.linspace(-1.0, 1.0, 8)
with numeric_checks(True):
    check_numerics(jnp.tanh(x), msg_fmt="layer {name}", name="ffn")  # eager: fine
    forward(x)
