"""Devices: assert_same_on_devices, --jitcheck-devices, jax_device, simulated CPU devices."""

from __future__ import annotations

import jax  # noqa: F401  (pytester restores sys.modules after inline runs; jaxlib can't load twice)
import jax.numpy as jnp
import pytest

from pytest_jitcheck import JitcheckUsageError, assert_same_on_devices
from pytest_jitcheck.devices import (
    DeviceSpec,
    gpu_available,
    parse_device_list,
    simulate_cpu_devices,
)

# These expect the GPU runs to skip; tests/plugin/test_gpu.py covers a machine with one.
no_gpu = pytest.mark.skipif(gpu_available(), reason="expects a machine without a GPU")

DEVICE_TESTS = """
import jax
import jax.numpy as jnp
import pytest
from pytest_jitcheck import assert_same_on_devices

TRACES = []


def test_backend_has_the_simulated_devices():
    assert len(jax.devices("cpu")) == 2


def test_runs_on(jax_device):
    assert jnp.ones(2).devices() == {jax_device}


def mlp(x):
    return jnp.tanh(x @ jnp.ones((4, 3))).sum()


def test_same_on_two_cpu_devices():
    grad = jax.value_and_grad(mlp)
    out = assert_same_on_devices(grad, jnp.ones((2, 4)), devices=["cpu:0", "cpu:1"])
    assert out[1].shape == (2, 4)


def test_different_on_two_cpu_devices():
    def traced_twice(x):
        TRACES.append(1)  # a trace-time value: differs between the two compilations
        return x * len(TRACES)

    assert_same_on_devices(traced_twice, jnp.ones(3), devices=jax.devices("cpu"))


def test_default_devices_with_one_platform_skip():
    assert_same_on_devices(mlp, jnp.ones((2, 4)))
"""


@no_gpu
def test_simulated_cpu_devices_and_per_platform_runs(pytester: pytest.Pytester):
    pytester.makeini(
        "[pytest]\naddopts = -p no:cacheprovider\nfilterwarnings = error\n"
        "jitcheck_cpu_devices = 2\n"
    )
    pytester.makepyfile(test_devices=DEVICE_TESTS)
    # Applied before conftest files load, so one that runs JAX at import time is fine.
    pytester.makeconftest("import jax.numpy as jnp\n\nONES = jnp.ones(1).block_until_ready()\n")
    result = pytester.runpytest_subprocess("--jitcheck-devices", "cpu:0,cpu:1,gpu", "-v", "-rs")
    result.assert_outcomes(passed=4, failed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "jitcheck: jax_device runs on cpu:0, cpu:1, gpu",
            "jitcheck: 2 simulated CPU devices",
        ]
    )
    result.stdout.fnmatch_lines_random(
        [
            "*::test_runs_on[[]cpu:0[]] PASSED*",
            "*::test_runs_on[[]cpu:1[]] PASSED*",
            "*::test_runs_on[[]gpu[]] SKIPPED*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "E *[[]jitcheck[]] results of `*traced_twice` (test_devices.py:*) differ between "
            "cpu:0 (reference) and cpu:1:",
            "E *output: f32[[]3[]]: 3 of 3 elements differ (tolerance rtol=1e-05, atol=1e-05)",
            "E *worst at [[]0[]]: cpu:1=2.0 cpu:0=1.0",
        ]
    )
    result.stdout.fnmatch_lines_random(
        [
            "SKIPPED [[]1[]] *[[]jitcheck[]] no gpu device: this JAX sees only cpu; install JAX "
            'with GPU support, e.g. pip install -U "jax[[]cuda12[]]" (NVIDIA)',
            "SKIPPED [[]1[]] *[[]jitcheck[]] assert_same_on_devices needs two devices, found "
            "cpu:0; *--jitcheck-cpu-devices 2*",
        ]
    )


def test_cpu_devices_asked_for_too_late(pytester: pytest.Pytester):
    # A plugin that runs a JAX operation at import starts the backend before we can act.
    pytester.makepyfile(
        early_plugin="import jax.numpy as jnp\njnp.ones(1).block_until_ready()\n",
        test_x="def test_x():\n    pass\n",
    )
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess("-p", "early_plugin", "--jitcheck-cpu-devices", "3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: [[]jitcheck[]] --jitcheck-cpu-devices 3 came too late: JAX already started its "
            "CPU backend with 1 device(s)*set JAX_NUM_CPU_DEVICES=3 in the environment instead"
        ]
    )
    assert "Traceback" not in result.stderr.str()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--jitcheck-devices", "cpu,gpuu"], "unknown device 'gpuu'; use one of cpu, gpu, cuda"),
        (["--jitcheck-devices", "gpu:x"], "bad device index in 'gpu:x'; expected e.g. gpu:0"),
        (["--jitcheck-devices", ","], "no device named in ','; expected e.g. cpu,gpu"),
        (["--jitcheck-cpu-devices", "0"], "--jitcheck-cpu-devices must be a positive integer"),
        (["-o", "jitcheck_cpu_devices=two"], "--jitcheck-cpu-devices must be a positive integer"),
    ],
)
def test_bad_options_are_usage_errors(pytester: pytest.Pytester, args, message):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: [[]jitcheck[]] {message}*"])


def test_jax_device_without_the_option_is_the_default_device(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import jax

        def test_default(jax_device):
            assert jax_device == jax.devices()[0]
        """
    )
    pytester.runpytest("-v").assert_outcomes(passed=1)


def test_device_specs_parse():
    assert parse_device_list(" cpu, GPU:1 ") == [DeviceSpec("cpu"), DeviceSpec("gpu", 1)]
    assert str(DeviceSpec("cpu", 1)) == "cpu:1"


def test_helper_bad_input():
    with pytest.raises(JitcheckUsageError, match=r"unknown device 'npu'"):
        assert_same_on_devices(jnp.sin, 1.0, devices=["npu"])
    with pytest.raises(JitcheckUsageError, match=r"jax.Device objects or names.*got int"):
        assert_same_on_devices(jnp.sin, 1.0, devices=[0])
    with pytest.raises(JitcheckUsageError, match=r"rtol must be a non-negative number"):
        assert_same_on_devices(jnp.sin, 1.0, rtol=-0.5)
    with pytest.raises(JitcheckUsageError, match=r"positive integer, got 0"):
        simulate_cpu_devices(0)


def test_missing_platforms_skip_with_how_to_get_them():
    with pytest.raises(pytest.skip.Exception, match=r'no tpu device.*pip install -U "jax\[tpu\]"'):
        assert_same_on_devices(jnp.sin, 1.0, devices="cpu,tpu")


@no_gpu
def test_usefixtures_runs_a_whole_module_per_platform(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.usefixtures("jax_device")

        def test_one():
            pass

        def test_two():
            pass
        """
    )
    result = pytester.runpytest("--jitcheck-devices", "cpu,tpu", "-v")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines_random(
        ["*::test_one[[]cpu[]] PASSED*", "*::test_two[[]tpu[]] SKIPPED*"]
    )
