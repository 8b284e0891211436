"""The recompiling training step, caught by ``assert_compiles``; the fixed one is not."""

from __future__ import annotations

import numpy as np
import pytest
from recompiling_train import (
    buggy_epoch,
    buggy_step,
    fixed_epoch,
    fixed_step,
    init_params,
    make_data,
)

from pytest_jitcheck import AssertCompilesFixture, CompileCountError


# The buggy step compiles four times here, for reasons that are not wasteful (new
# shapes, new static values): --jitcheck issues no RecompileWarning, and the count is
# what assert_compiles checks.
def test_buggy_step_recompiles(assert_compiles: AssertCompilesFixture):
    data = make_data()
    with pytest.raises(CompileCountError) as caught, assert_compiles(1, fn=buggy_step):
        params = buggy_epoch(init_params(), data, lr=0.1)
        buggy_epoch(params, data, lr=0.05)  # the schedule lowers the learning rate
    message = str(caught.value)
    assert "got 4" in message  # two batch shapes x two learning rates
    # The last, shorter batch ...
    assert "pytree structure" not in message
    assert "batch['x']: f32[32,3] -> f32[4,3]" in message
    # ... and the static learning rate each recompile.
    assert "lr (static): 0.1 -> 0.05" in message


def test_fixed_step_compiles_once(assert_compiles: AssertCompilesFixture):
    data = make_data()
    with assert_compiles(1, fn=fixed_step):
        params = fixed_epoch(init_params(), data, lr=0.1)
        params = fixed_epoch(params, data, lr=0.05)
    # Padding with a mask trains the same model as the ragged batches did.
    reference = buggy_epoch(buggy_epoch(init_params(), data, lr=0.1), data, lr=0.05)
    np.testing.assert_allclose(params["w"], reference["w"], rtol=1e-5)
