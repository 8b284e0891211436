"""Compare an MLP's forward pass and gradient on CPU and GPU (float32, default precision).

Usage: python benchmarks/gpu_compare.py [--batch 256] [--width 512] [--depth 4]

Runs the same jitted computation on the first CPU and the first GPU device, reports the
max absolute and relative error of every output leaf (GPU against CPU as the reference),
then what ``assert_same_on_devices`` says with its default tolerances and with
``jax.default_matmul_precision("highest")``. Exits 0 with a message when there is no GPU.
"""

from __future__ import annotations

import argparse
import itertools
import sys

import jax
import jax.numpy as jnp
import numpy as np

from pytest_jitcheck import assert_same_on_devices


def init_mlp(key, sizes):
    params = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        key, wkey = jax.random.split(key)
        w = jax.random.normal(wkey, (fan_in, fan_out), jnp.float32) / np.sqrt(fan_in)
        params.append({"w": w, "b": jnp.zeros(fan_out, jnp.float32)})
    return params


def forward(params, x):
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


def errors(reference, other):
    """Return (path, max abs error, max rel error) per leaf."""
    rows = []
    ref_leaves = jax.tree_util.tree_flatten_with_path(reference)[0]
    other_leaves = jax.tree.leaves(other)
    for (path, a), b in zip(ref_leaves, other_leaves, strict=True):
        a = np.asarray(a, np.float64)
        b = np.asarray(b, np.float64)
        abs_err = np.abs(a - b)
        rel_err = abs_err / np.maximum(np.abs(a), np.finfo(np.float32).tiny)
        rows.append((jax.tree_util.keystr(path), float(abs_err.max()), float(rel_err.max())))
    return rows


def run_on(device, fn, *args):
    with jax.default_device(device):
        return jax.device_get(jax.jit(fn)(*jax.device_put(args, device)))


def report(name, fn, args, cpu, gpu):
    print(f"\n{name}: max errors of {gpu} against {cpu}")
    ref = run_on(cpu, fn, *args)
    out = run_on(gpu, fn, *args)
    for path, abs_err, rel_err in errors(ref, out):
        print(f"  {path or 'output':<24} max abs {abs_err:.3e}   max rel {rel_err:.3e}")
    for precision in ("default", "highest"):
        try:
            with jax.default_matmul_precision(None if precision == "default" else precision):
                assert_same_on_devices(fn, *args, devices=[cpu, gpu])
            print(f"  assert_same_on_devices ({precision} matmul precision): passes")
        except AssertionError as err:
            first = str(err).splitlines()[:3]
            print(f"  assert_same_on_devices ({precision} matmul precision): fails")
            for line in first:
                print(f"    {line}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args(argv)
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError:
        print('no GPU visible to JAX: nothing to compare (pip install -U "jax[cuda12]")')
        return 0
    cpu = jax.devices("cpu")[0]
    print(f"jax {jax.__version__}; cpu: {cpu.device_kind}; gpu: {gpu.device_kind}")
    key = jax.random.PRNGKey(0)
    sizes = [args.width] * args.depth + [10]
    params = init_mlp(key, sizes)
    x = jax.random.normal(jax.random.PRNGKey(1), (args.batch, args.width), jnp.float32)
    y = jax.random.normal(jax.random.PRNGKey(2), (args.batch, 10), jnp.float32)
    report("forward", forward, (params, x), cpu, gpu)
    report("value_and_grad", jax.value_and_grad(loss), (params, x, y), cpu, gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
