"""Run the same computation on several devices; simulate several CPU devices."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from pytest_jitcheck._eager_state import paused
from pytest_jitcheck._errors import JitcheckUsageError
from pytest_jitcheck.compare import (
    check_callable,
    check_tolerance,
    compare_trees,
    describe_fn,
    format_failure,
    is_jitted,
)

if TYPE_CHECKING:
    import jax

# Platform names accepted in device specs, and the platform JAX reports for each.
PLATFORMS = {"cpu": "cpu", "gpu": "gpu", "cuda": "gpu", "rocm": "gpu", "tpu": "tpu"}

_INSTALL_HINTS = {
    "gpu": 'install JAX with GPU support, e.g. pip install -U "jax[cuda12]" (NVIDIA)',
    "cuda": 'install JAX with CUDA support, e.g. pip install -U "jax[cuda12]"',
    "rocm": 'install JAX with ROCm support, e.g. pip install -U "jax[rocm]"',
    "tpu": 'run on a TPU host with pip install -U "jax[tpu]"',
    "cpu": "simulate more CPU devices with --jitcheck-cpu-devices N",
}


@dataclass(frozen=True)
class DeviceSpec:
    """A device named by the user: a platform and optionally an index (``cpu:1``)."""

    platform: str
    index: int | None = None

    def __str__(self) -> str:
        return self.platform if self.index is None else f"{self.platform}:{self.index}"


def gpu_available() -> bool:
    """Tell whether a CUDA or ROCm build of JAX and a GPU driver are installed.

    Looks at installed packages and the driver's tool, without starting a JAX backend
    (which would fix the device set before tests can configure it).
    """
    import importlib.util
    import shutil

    plugins = ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_rocm60_plugin", "jax_rocm7_plugin")
    has_plugin = any(importlib.util.find_spec(name) is not None for name in plugins)
    return has_plugin and bool(shutil.which("nvidia-smi") or shutil.which("rocm-smi"))


def parse_device_spec(text: str) -> DeviceSpec:
    """Parse ``cpu``, ``gpu`` or ``cpu:1``; raise a usage error for anything else."""
    name, sep, index = text.strip().lower().partition(":")
    if name not in PLATFORMS:
        raise JitcheckUsageError(
            f"unknown device {text.strip()!r}; use one of {', '.join(PLATFORMS)}, "
            "optionally with an index such as cpu:1"
        )
    if not sep:
        return DeviceSpec(name)
    if not index.isdigit():
        raise JitcheckUsageError(f"bad device index in {text.strip()!r}; expected e.g. {name}:0")
    return DeviceSpec(name, int(index))


def parse_device_list(text: str) -> list[DeviceSpec]:
    """Parse a comma-separated list such as ``cpu,gpu``."""
    specs = [parse_device_spec(part) for part in text.split(",") if part.strip()]
    if not specs:
        raise JitcheckUsageError(f"no device named in {text!r}; expected e.g. cpu,gpu")
    return specs


def visible_platforms() -> dict[str, list[jax.Device]]:
    """Return the devices of every platform JAX has a backend for, by platform."""
    import jax
    import jax.extend

    found: dict[str, list[jax.Device]] = {}
    for name in jax.extend.backend.backends():
        devices = jax.devices(name)
        if devices:
            found.setdefault(devices[0].platform, list(devices))
    return found


def resolve_device(spec: DeviceSpec) -> jax.Device | str:
    """Return the device ``spec`` names, or a reason why this machine has none."""
    import jax

    platforms = visible_platforms()
    if spec.platform in ("cuda", "rocm"):
        # Both report platform "gpu"; JAX knows their backends by these names.
        devices = _named_devices(jax, spec.platform)
    else:
        devices = platforms.get(PLATFORMS[spec.platform], [])
    if not devices:
        return (
            f"[jitcheck] no {spec.platform} device: this JAX sees only "
            f"{', '.join(sorted(platforms)) or 'no devices'}; {_INSTALL_HINTS[spec.platform]}"
        )
    if spec.index is None:
        return devices[0]
    if spec.index >= len(devices):
        return (
            f"[jitcheck] no device {spec}: this JAX sees {len(devices)} {spec.platform} "
            f"device{'s' if len(devices) != 1 else ''}; {_INSTALL_HINTS[spec.platform]}"
        )
    return devices[spec.index]


def _named_devices(jax_module: Any, name: str) -> list[jax.Device]:
    try:
        return list(jax_module.devices(name))
    except RuntimeError:
        return []


def device_label(device: jax.Device) -> str:
    """Name a device compactly: ``cpu:0``, ``gpu:1``."""
    return f"{device.platform}:{device.id}"


def _resolve_all(devices: Sequence[Any] | str | None) -> list[jax.Device]:
    import jax

    if devices is None:
        return [group[0] for group in visible_platforms().values()]
    items: Sequence[Any] = parse_device_list(devices) if isinstance(devices, str) else devices
    resolved: list[jax.Device] = []
    for item in items:
        if isinstance(item, jax.Device):
            device: jax.Device | str = item
        elif isinstance(item, str | DeviceSpec):
            spec = item if isinstance(item, DeviceSpec) else parse_device_spec(item)
            device = resolve_device(spec)
        else:
            raise JitcheckUsageError(
                f"devices must be jax.Device objects or names such as 'cpu' or 'gpu:0', "
                f"got {type(item).__name__}"
            )
        if isinstance(device, str):
            pytest.skip(device)
        if device not in resolved:
            resolved.append(device)
    return resolved


def _put(tree: Any, device: jax.Device) -> Any:
    import jax

    def move(leaf: Any) -> Any:
        return jax.device_put(leaf, device) if isinstance(leaf, jax.Array | np.ndarray) else leaf

    return jax.tree_util.tree_map(move, tree)


def assert_same_on_devices(
    fn: Callable[..., Any],
    *args: Any,
    devices: Sequence[Any] | str | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    **kwargs: Any,
) -> Any:
    """Assert that jitted ``fn(*args, **kwargs)`` gives the same result on every device.

    ``devices`` defaults to the first device of each platform JAX can see; it may list
    ``jax.Device`` objects or names (``"cpu"``, ``"gpu"``, ``"cpu:1"``). The first device is
    the reference. A named platform this machine lacks, or fewer than two devices to
    compare, skips the test with a reason that says how to get them. Returns the
    reference result.
    """
    __tracebackhide__ = True
    import jax

    check_callable(fn)
    rtol = check_tolerance("rtol", rtol)
    atol = check_tolerance("atol", atol)
    targets = _resolve_all(devices)
    if len(targets) < 2:
        seen = ", ".join(device_label(d) for d in targets) or "none"
        pytest.skip(
            f"[jitcheck] assert_same_on_devices needs two devices, found {seen}; "
            f"{_INSTALL_HINTS['gpu']}, or compare simulated CPU devices with "
            "--jitcheck-cpu-devices 2 and devices=['cpu:0', 'cpu:1']"
        )
    jitted = fn if is_jitted(fn) else jax.jit(fn)
    outputs = []
    for device in targets:
        with paused(), jax.default_device(device):
            out = jitted(*_put(args, device), **_put(kwargs, device))
        outputs.append(jax.device_get(out))
    reference = targets[0]
    failures = []
    for device, out in zip(targets[1:], outputs[1:], strict=True):
        labels = (device_label(device), device_label(reference))
        problems = compare_trees(out, outputs[0], labels=labels, rtol=rtol, atol=atol)
        if problems:
            failures.append(
                format_failure(
                    f"results of {describe_fn(fn)} differ between {labels[1]} (reference) "
                    f"and {labels[0]}:",
                    problems,
                )
            )
    if failures:
        raise AssertionError("\n".join(failures))
    return outputs[0]


def simulate_cpu_devices(count: object) -> None:
    """Make JAX's CPU backend expose ``count`` devices; must run before it initialises."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise JitcheckUsageError(
            f"--jitcheck-cpu-devices must be a positive integer, got {count!r}"
        )
    import jax

    if not hasattr(jax.config, "jax_num_cpu_devices"):
        # Older JAX only reads the XLA flag, at backend start-up.
        flags = os.environ.get("XLA_FLAGS", "")
        os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={count}".strip()
        return
    try:
        jax.config.update("jax_num_cpu_devices", count)  # type: ignore[no-untyped-call]
    except RuntimeError as err:
        if len(jax.devices("cpu")) == count:
            return
        raise JitcheckUsageError(
            f"--jitcheck-cpu-devices {count} came too late: JAX already started its CPU "
            f"backend with {len(jax.devices('cpu'))} device(s) (some code ran a JAX operation "
            "before pytest-jitcheck could configure it, e.g. at import time of a plugin); "
            f"set JAX_NUM_CPU_DEVICES={count} in the environment instead"
        ) from err
