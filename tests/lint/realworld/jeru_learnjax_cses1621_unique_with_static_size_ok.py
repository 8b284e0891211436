# source: https://github.com/jeru/learn-jax/blob/488e32fb8f91cbea9f60bca8a01350adbce758d9/exercises/cses-1621/whole.py
#   (a learner's solution of CSES 1621 "Distinct Numbers" in JAX, fed by grain)
# observed on jax 0.10.2 CPU: runs clean and answers every test. solve_in_jax calls
#   jnp.unique under jit with size=a.shape[0] and fill_value=-1, so its output shape is static;
#   solve pads the input to a power of two with jnp.resize outside jit (a `while` on
#   arr.shape[0], a Python int) so that jit compiles once per power of two, and converts the
#   result with int() outside jit.
# gap: exemption-vs-JAX
# added: a minimal stand-in for grain (not installed): `grain.sources.RandomAccessDataSource`
#   as a Generic base class and `grain.load(ds, num_epochs=...)` as iteration over the data
#   source num_epochs times; the __main__ block, which writes three CSES-style tests to a
#   temporary directory and passes it as sys.argv[1].
# Copyright 2026 Cheng Sheng
# SPDX-License-Identifier: Apache-2.0
#
# https://cses.fi/problemset/task/1621
#
# Test the usage of higher-level APIs of grain.

import os
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ["JAX_ENABLE_X64"] = "1"

import glob
import os.path
import types
import typing

import jax
from jax import numpy as jnp
from jaxtyping import Array, Int64
import numpy


class _RandomAccessDataSource(typing.Generic[typing.TypeVar("T")]):  # stand-in for grain's
    pass


def _load(ds, num_epochs):  # stand-in for grain.load
    for _ in range(num_epochs):
        for i in range(len(ds)):
            yield ds[i]


grain = types.SimpleNamespace(
    sources=types.SimpleNamespace(RandomAccessDataSource=_RandomAccessDataSource),
    load=_load,
)


def _get_tests_basenames(directory, ext):
    files = glob.glob(os.path.join(directory, '*' + ext))
    return sorted(os.path.splitext(os.path.basename(f))[0] for f in files)


def _get_tests(directory):
    in_files = _get_tests_basenames(directory, '.in')
    ans_files = _get_tests_basenames(directory, '.out')
    assert in_files == ans_files
    return [os.path.join(directory, f) for f in in_files]


class MultiTextTestDataSource(
        grain.sources.RandomAccessDataSource[tuple[str, str]]):
    def __init__(self, directory):
        self._file_bases = _get_tests(directory)

    def __len__(self) -> int:
        return len(self._file_bases)

    def __getitem__(self, index: int) -> tuple[str, str]:
        fn = self._file_bases[index]
        with open(fn + '.in') as f:
            content1 = f.read()
        with open(fn + '.out') as f:
            content2 = f.read()
        return (content1, content2)


@jax.jit
def solve_in_jax(a: Int64[Array, ' N']) -> Int64[Array, '1']:
    a = jnp.unique(a, size=a.shape[0], fill_value=-1)
    return jnp.count_nonzero(a != -1)


def solve(content: str) -> str:
    lines = content.strip().split('\n')
    arr = jnp.array(numpy.fromiter(map(int, lines[1].split()),
                                   dtype=jnp.int64))
    n = 1
    while n < arr.shape[0]: n *= 2
    # Limit the variety of array lengths to not explode the number of copies
    # that jax.jit produces.
    arr = jnp.resize(arr, (n,))
    s = solve_in_jax(arr)
    return str(int(s))


def solve_and_check(content: str, ans: str):
    out = solve(content)
    assert out == ans.strip(), f'{out} vs {ans}'


def sanitize(s: str) -> str:
    rows = s.split('\n')
    rows = [r.strip() for r in rows]
    rows = [r for r in rows if r]
    return '\n'.join(rows)


def main():
    import sys
    ds = MultiTextTestDataSource(sys.argv[1])
    dl = grain.load(ds, num_epochs=2)
    num = 0
    for c_in, c_ans in dl:
        print(f'Testing {num}...')
        solve_and_check(c_in, c_ans)
        num += 1
    print(f'All {num} tests passed.')


if __name__ == "__main__":
    import sys
    import tempfile

    tests = {"1": ("5\n2 3 2 2 3\n", "2\n"),
             "2": ("3\n1000000000 1 1000000000\n", "2\n"),
             "3": ("6\n1 2 3 4 5 6\n", "6\n")}
    with tempfile.TemporaryDirectory() as d:
        for name, (tin, tout) in tests.items():
            with open(os.path.join(d, name + ".in"), "w") as f:
                f.write(tin)
            with open(os.path.join(d, name + ".out"), "w") as f:
                f.write(tout)
        sys.argv[1:] = [d]
        main()
