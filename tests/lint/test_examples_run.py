"""Every rule example, run with real JAX on CPU: VALID ones run, INVALID ones misbehave.

The examples are each rule's tests and documentation, and the exemptions they show are claims
about JAX. Here each example is executed, then the calls listed for it: a VALID example must
run cleanly; an INVALID example must raise the documented error at one of its marked lines,
or show the documented misbehaviour (the driver asserts it). An example that cannot be run
says why.
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import textwrap
import types
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jitlint.rules import all_rules
from pytest_jitcheck import CompileRecorder

from ._expect import marked
from ._jaxrun import _last_line

EXAMPLE = "example.py"


@dataclass(frozen=True)
class Run:
    """Statements to run after an example, and what they must show."""

    statements: tuple[str, ...]
    error: str | None = None  # an exception class name (or a base class name) to expect
    reason: str | None = None  # why the example cannot be run


def ok(*statements: str) -> Run:
    """Run each statement: none may raise."""
    return Run(statements)


def raises(error: str, *statements: str) -> Run:
    """Run each statement (none: the example itself): each raises ``error`` (one of
    ``A|B``) at a marked line."""
    return Run(statements, error=error)


def shows(*statements: str) -> Run:
    """Run statements that assert the documented silent misbehaviour."""
    return Run(statements)


def not_runnable(reason: str) -> Run:
    """Say why an example cannot be run."""
    return Run((), reason=reason)


KEY = "jax.random.key(0)"
RUNS: dict[str, Run] = {
    "JIT101-VALID-0": ok("log2_if_rank_2(jnp.ones((2, 2)))", "log2_if_rank_2(jnp.ones(3))"),
    "JIT101-VALID-1": ok("f(jnp.ones(3), 'double')", "f(jnp.ones(3), mode='single')"),
    "JIT101-VALID-2": ok("f(jnp.ones(3))", "f(jnp.ones(4), jnp.ones(4))"),
    "JIT101-VALID-3": ok("g(1.0)", "g(-2.0)"),
    "JIT101-INVALID-0": raises("TracerBoolConversionError", "f(1.0)"),
    "JIT101-INVALID-1": raises("TracerBoolConversionError", "h(jnp.ones(()), 1.0)"),
    "JIT101-INVALID-2": raises("ConcretizationTypeError", "fast(jnp.ones((2, 3)))"),
    "JIT102-VALID-0": ok("f(jnp.ones(3))"),
    "JIT102-VALID-1": ok("driver(jax.jit(lambda x: x * 2), jnp.ones(3), 3)"),
    "JIT102-INVALID-0": raises("TracerBoolConversionError", "loop(jnp.ones(3), 3)"),
    "JIT102-INVALID-1": raises("TracerBoolConversionError", "newton(jnp.float32(1.0))"),
    "JIT103-VALID-0": ok("f(jnp.ones((2, 2)), jnp.ones((2, 2)))"),
    "JIT103-VALID-1": ok("f(jnp.ones(3))"),
    "JIT103-INVALID-0": raises("TracerBoolConversionError", "in_range(jnp.ones(()), 0.0, 2.0)"),
    "JIT103-INVALID-1": raises("TracerBoolConversionError", "f(jnp.ones(()))"),
    "JIT103-INVALID-2": raises("TracerBoolConversionError", "f(jnp.ones(()))"),
    "JIT103-INVALID-3": raises("TracerBoolConversionError", "clip_unit(0.5)"),
    "JIT104-VALID-0": ok("f(jnp.ones(3))"),
    "JIT104-VALID-2": ok(
        "assert shift_all(Grid(jnp.eye(2), 2)).shape == (2, 2)",
    ),
    "JIT104-VALID-1": ok("power(jnp.ones(3), 3)"),
    "JIT104-INVALID-0": raises("TracerIntegerConversionError", "power(jnp.ones(3), 3)"),
    "JIT201-VALID-0": ok(
        "s = Scaler(2.0)", "assert (s.apply(jnp.ones(3)) == 2.0).all()", "train(jnp.ones(3))"
    ),
    "JIT201-INVALID-0": shows(
        "a, b = train(jnp.ones(3))", "assert (a == b).all(), 'the trace saw the new scale'"
    ),
    "JIT201-INVALID-1": shows(
        "s = Scaler()",
        "before = s.apply(jnp.ones(3))",
        "s.set_scale(2.0)",
        "assert (s.apply(jnp.ones(3)) == before).all(), 'the trace saw the new scale'",
    ),
    "JIT201-VALID-1": ok("assert f(jnp.ones(3))[0] == 2.0"),
    "JIT201-VALID-2": ok("f(jnp.ones(3))"),
    "JIT201-VALID-3": ok("assert f(1.0) == 3.0"),
    "JIT201-INVALID-2": shows("assert first == second == 1.0, 'jit saw the new global'"),
    "JIT201-INVALID-3": shows(
        "register(1.0)",
        "before = total(jnp.float32(1.0))",
        "register(2.0)",
        "assert total(jnp.float32(1.0)) == before, 'jit saw the new length'",
    ),
    "JIT201-VALID-4": ok(
        "assert apply(jnp.ones(3), cfg)[0] == 2.0",
        "assert apply(jnp.ones(3), Config(3.0))[0] == 3.0",
    ),
    "JIT201-INVALID-4": shows("assert (first == second).all(), 'jit saw the new attribute'"),
    "JIT201-INVALID-5": shows(
        "assert (first == second).all(), 'jit saw the new field'",
        "assert (Stack([4, 8]).depth(jnp.ones(3)) == first).all(), 'an equal fresh object "
        "got a fresh trace'",
    ),
    "JIT201-INVALID-6": shows("assert (first == second).all(), 'jit saw the new scale'"),
    "JIT201-INVALID-7": shows("assert (first == second).all(), 'jit saw the new scale'"),
    "JIT201-VALID-5": ok("assert (out == 5.0).all()"),
    "JIT201-VALID-6": ok("assert (normalise(jnp.ones(3)) == out).all()"),
    "JIT201-VALID-8": ok("assert (apply(jnp.ones(2)) == 6.0).all()"),
    "JIT201-VALID-9": ok(
        "assert (make_predict(2.0)(jnp.ones(3)) == 2.0).all()",
        "assert (train(jnp.ones(3), jnp.ones(3))[0] == 2.0).all()",
    ),
    "JIT201-VALID-10": ok("assert first == 3.0 and second == 1.5"),
    "JIT201-VALID-11": ok("assert out == 6.0"),
    "JIT201-VALID-7": ok(
        "r = Reservoir(3)",
        "a = r.step(jnp.ones(3))",
        "assert (r.step(jnp.ones(3)) == a).all() and r.W is not None",
    ),
    "JIT201-INVALID-8": shows("assert (first == second).all(), 'jit saw the new scale'"),
    "JIT201-INVALID-9": shows("assert (first == second).all(), 'jit saw the new E'"),
    "JIT201-INVALID-10": shows("assert (first == second).all(), 'jit saw the new fn'"),
    "JIT201-VALID-12": ok("assert (second == 2 * first).all()"),
    "JIT201-VALID-13": ok("assert (out == 0.0).all()"),
    "JIT202-VALID-0": ok("f(jnp.ones(3))"),
    "JIT202-VALID-1": ok(
        "train(jax.jit(lambda x: x + 1), jnp.ones(3))", "assert len(history) == 3"
    ),
    "JIT202-VALID-2": ok(
        "schedule = linear_decay(1.0, 10)",
        "assert [float(schedule(jnp.asarray(c))) for c in (0, 5, 12, 5)] == [1, 0.5, 0, 0.5]",
        "stored = schedule.__wrapped__.__closure__[0].cell_contents",
        "assert type(stored) is float and stored == 10.0, stored",
    ),
    "JIT202-INVALID-0": shows(
        "log2(jnp.ones(3))", "assert isinstance(global_list[0], jax.core.Tracer)"
    ),
    "JIT202-INVALID-1": shows("f(1.0)", "f(2.0)", "assert counter == 1, counter"),
    "JIT202-INVALID-2": shows(
        "f(jnp.ones(3))", "assert isinstance(cache['last'], jax.core.Tracer)"
    ),
    "JIT202-INVALID-3": shows("f(1.0)", "f(2.0)", "assert Model.calls == 1, Model.calls"),
    "JIT202-INVALID-4": shows("assert int(total()) == 0 and next(steps) == 1"),
    "JIT202-INVALID-5": shows(
        "assert isinstance(losses[0], jax.core.Tracer)",
        "try:\n    losses[0] + 1\nexcept jax.errors.UnexpectedTracerError:\n    pass\n"
        "else:\n    raise AssertionError('the stored tracer was usable')",
    ),
    "JIT202-INVALID-6": shows(
        "assert float(total([1.0, 2.0, 3.0])) == 3.0",  # the first item, three times
    ),
    "JIT202-INVALID-8": shows(
        "import warnings",
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')  # equinox: 'A JAX array is being set as static!'\n"
        "    m = make(jnp.ones(2), jnp.asarray(3.0))",
        "assert isinstance(m.scale, jax.core.Tracer)",  # leaked out of filter_jit
    ),
    "JIT202-INVALID-7": shows(
        "w = Wrapper(Env())",
        "w.run(jnp.ones(2), 2.0)",
        "assert 'Tracer' in type(w.env.scale).__name__, 'the tracer stays on the object'",
    ),
    "JIT202-VALID-4": ok(
        "w = Wrapper(Env())",
        "w.run(jnp.ones(2), 2.0)",
        "assert w.env.scale == 1.0",
    ),
    "JIT202-VALID-5": ok("assert (update(jnp.zeros(2)) == 1.0).all()"),
    "JIT202-VALID-3": ok("assert calls == 2, calls"),
    "JIT203-VALID-0": ok("f(jnp.ones(3))", "report(jnp.ones(3))", "g(jnp.ones(3))"),
    "JIT203-VALID-1": ok("check(jnp.ones(3))"),
    "JIT203-VALID-2": ok("mean_of_chunks(jnp.ones(6), 3)"),
    "JIT203-INVALID-0": shows(
        "f(jnp.ones(3))",
        "f(jnp.ones(3))",
        "assert OUT.getvalue().count('x = ') == 1 and 'Tracer' in OUT.getvalue()",
        "assert OUT.getvalue().count('Running f():') == 1",  # two calls, one message
    ),
    "JIT203-INVALID-2": shows(
        "step(1, 1.0)",  # branch 1 is selected, yet the low branch's print ran
        "assert 'taking the low branch' in OUT.getvalue()",
    ),
    "JIT203-INVALID-3": shows(
        "generate(params, jnp.ones((1, 2)))",
        "generate(params, jnp.ones((1, 2)))",  # the method flax's apply runs: traced once
        "assert OUT.getvalue().count(\"'x'\") == 1 and 'Tracer' in OUT.getvalue()",
    ),
    "JIT203-INVALID-1": shows(
        "records = capture(logger)",
        "step_fast(jnp.ones(3))",
        "step_fast(jnp.ones(3))",
        "assert len(records) == 1 and 'Tracer' in records[0].getMessage()",
    ),
    "JIT204-VALID-0": ok(f"timed(jnp.ones(3), {KEY})"),
    "JIT204-VALID-1": ok("a = apply(jnp.ones(3))", "assert (apply(jnp.ones(3)) == a).all()"),
    "JIT204-INVALID-0": shows(
        "assert (add_noise(jnp.zeros(3)) == add_noise(jnp.zeros(3))).all(), 'fresh noise'"
    ),
    "JIT204-INVALID-1": shows("assert stamp(1.0)[1] == stamp(1.0)[1], 'a fresh time'"),
    "JIT301-VALID-0": ok("assert run() == 10"),
    "JIT301-VALID-1": ok("run(jnp.ones(3))"),
    "JIT301-VALID-2": ok(
        "step = make_step(2.0)",
        "assert compiles('[step(jnp.ones(3)) for _ in range(3)]') <= 1",
        "model = Model(2.0)",
        "assert compiles('[model(jnp.ones(3)) for _ in range(3)]') <= 1",
    ),
    "JIT301-INVALID-0": shows("assert compiles('run(jnp.ones(3))') >= 10"),
    "JIT301-INVALID-1": shows(
        "w = jnp.ones(3)",
        "assert compiles('train(w, [jnp.ones(3)] * 3)') >= 3",
    ),
    "JIT301-INVALID-2": shows("assert compiles('run(jnp.ones(3))') >= 10"),
    "JIT301-INVALID-3": shows(
        "assert compiles('run([jnp.ones(2), jnp.ones(2), jnp.ones(2)])') == 3"
    ),
    "JIT301-INVALID-4": shows(
        "agent = Agent(2.0)", "assert compiles('[agent.act(jnp.ones(3)) for _ in range(3)]') == 3"
    ),
    "JIT301-INVALID-5": shows(
        "run(Scaler(2.0), [jnp.ones(3)])",  # warm-up: JAX's own first traces
        "assert traces('run(Scaler(2.0), [jnp.ones(3)] * 3)') == 3",
    ),
    "JIT301-INVALID-6": shows("assert compiles('run(jnp.ones(3))') == 3"),
    "JIT301-INVALID-7": shows("assert compiles('run(jnp.ones(3))') == 3"),
    "JIT301-INVALID-8": shows(
        "assert compiles('run(jnp.ones(3), [jnp.ones(3)] * 3)') >= 3",
    ),
    "JIT301-INVALID-9": shows(
        "sweep(jnp.ones(3))",  # warm-up: JAX's own first traces
        "assert traces('sweep(jnp.ones(3))') == 3",  # one trace per optimizer
    ),
    "JIT301-VALID-3": ok(
        "run(Scaler(), [jnp.ones(3)])",
        "assert traces('run(Scaler(), [jnp.ones(3)] * 3)') == 1",  # `apply`, jitted once per run
    ),
    "JIT301-VALID-4": ok(
        "train(jnp.ones(3), [jnp.ones(3)])",  # warm-up: JAX's own first traces
        "assert traces('train(jnp.ones(3), [jnp.ones(3)] * 3)') <= 1",
    ),
    "JIT301-INVALID-10": shows(
        "train_out(jnp.ones(3))",
        "assert traces('eval_out(jnp.ones(3))') == 1",  # the second jit traces again
    ),
    "JIT301-VALID-6": ok(
        "first(jnp.ones(3))",
        "assert traces('second(jnp.ones(3))') == 0",  # the same stored method: cached
    ),
    "JIT301-VALID-7": ok(
        "before, after = rescaled(Model(2.0), jnp.ones(3))",
        "assert (float(before[0]), float(after[0])) == (2.0, 3.0)",
    ),
    "JIT301-INVALID-11": shows(
        "integrate([True], jnp.int32(0))",  # warm-up: JAX's own first compiles
        "assert compiles('integrate([True, False, True], jnp.int32(0))', eager=True) >= 3",
    ),
    "JIT301-INVALID-12": shows(
        "import jax.numpy as jnp",
        "apply(Scaled(jnp.ones(2), 2.0), jnp.ones(2))",  # the first trace
        "assert traces('apply(Scaled(jnp.ones(2), 2.0), jnp.ones(2))') == 1",  # an equal one
    ),
    "JIT301-INVALID-14": shows("assert compiles('run(jnp.ones(3))') >= 10"),
    "JIT301-INVALID-15": shows("assert compiles('run(jnp.ones(2))') >= 3"),
    "JIT301-INVALID-16": shows("assert compiles('run(jnp.ones((2, 2)))') >= 3"),
    "JIT301-INVALID-17": shows("assert compiles('run(jnp.ones((1, 2)))') >= 3"),
    "JIT301-INVALID-18": shows(
        "run(jnp.ones(2))",  # warm-up: JAX's own first traces
        "assert traces('run(jnp.ones(2))') == 3",
    ),
    "JIT301-INVALID-13": shows(
        "import jax.numpy as jnp",
        "train(jnp.ones(2))",  # warm-up: JAX's own first compiles
        "assert compiles('train(jnp.ones(2))') >= 3",  # one per new optimizer
    ),
    "JIT301-VALID-9": ok(
        "apply_all(jnp.ones(2))",  # each compiles on its first call
        "assert compiles('apply_all(jnp.ones(2))') == 0",  # and never again
    ),
    "JIT301-VALID-8": ok(
        "integrate([True], jnp.int32(0))",  # warm-up
        "assert compiles('integrate([True, False, True], jnp.int32(0))', eager=True) == 0",
    ),
    "JIT301-VALID-10": ok("test_rollout(select_action(3))"),
    "JIT301-VALID-11": ok("run(jnp.ones((1, 2)))"),
    "JIT301-VALID-12": ok("compare(jnp.eye(3))"),
    "JIT301-VALID-14": ok("main()"),
    "JIT301-VALID-13": shows(
        "server.step(jnp.ones(3))",
        "assert server.updater._cache_size() == 1, 'compiled again'",
    ),
    "JIT301-VALID-5": ok(
        "sweep(jnp.ones(3))",  # warm-up: JAX's own first traces
        "assert traces('fit(jnp.ones(3), 0.1, 20)') == 1",  # one trace per run, not per step
    ),
    "JIT302-VALID-0": ok("f(jnp.ones((2, 3)), (1, 0))"),
    "JIT302-INVALID-0": raises("ValueError"),
    "JIT302-INVALID-1": raises("ValueError", "run(jnp.ones(3))"),
    "JIT302-INVALID-2": raises("ValueError", "run(jnp.ones(3))"),
    "JIT302-INVALID-3": raises("ValueError"),
    "JIT302-INVALID-4": raises("ValueError"),
    "JIT302-INVALID-5": raises("ValueError", f"chain({KEY}, jnp.cos, jnp.ones(3))"),
    "JIT302-INVALID-6": raises("ValueError", "step(jnp.ones(2), 1.5)"),
    "JIT303-VALID-0": ok("f(jnp.ones(4), jnp.ones((6, 4, 4)))", "host(1.0)"),
    # Tracing all three takes about 40 s; one shows the program growing with the trip count.
    "JIT303-INVALID-0": shows("assert len(jax.make_jaxpr(total.__wrapped__)(1.0).eqns) >= 4096"),
    "JIT303-INVALID-1": shows("assert len(jaxpr.eqns) >= 1000"),
    "JIT303-VALID-1": ok("assert sums[-1] == 8.0"),
    "JIT401-VALID-0": ok("f(jnp.ones(4))", "report(jnp.ones(4))", "pad_to(jnp.ones(3), 2.0)"),
    "JIT401-VALID-1": ok("g(jnp.ones(4), 2)"),
    "JIT401-VALID-3": ok("assert scale_params({'a': jnp.ones(2)})['a'][0] == 2.0"),
    "JIT401-VALID-2": ok(),
    "JIT401-INVALID-0": raises(
        "ConcretizationTypeError", "metrics(jnp.float32(1.0), jnp.ones(3), jnp.ones(3))"
    ),
    "JIT401-INVALID-1": raises("ConcretizationTypeError"),
    "JIT401-INVALID-2": raises("ConcretizationTypeError", "top(jnp.ones(3))", "scale(jnp.ones(3))"),
    "JIT401-INVALID-3": raises("TracerIntegerConversionError", "weight(jnp.ones(3), 1)"),
    "JIT401-INVALID-4": raises("ConcretizationTypeError"),
    "JIT401-INVALID-5": raises("TypeError", "rate(jnp.int32(150))"),
    "JIT401-INVALID-6": raises("TracerBoolConversionError", "relu(1.5)"),
    "JIT401-INVALID-7": raises("TypeError", "step(jnp.ones(2), jnp.ones((3, 2)))"),
    "JIT401-INVALID-8": raises("ConcretizationTypeError"),
    "JIT401-INVALID-9": raises("TracerIntegerConversionError"),
    "JIT402-VALID-0": ok("f(jnp.ones((2, 2)))", "host(jnp.ones(3))"),
    "JIT402-INVALID-0": raises("TracerArrayConversionError", "log_softmax(jnp.ones((3, 2)))"),
    "JIT402-INVALID-1": raises("TracerArrayConversionError", "g(jnp.ones(3), jnp.ones((2, 3)))"),
    "JIT402-INVALID-2": raises("TracerArrayConversionError", "lookup(jnp.ones(3), 1)"),
    "JIT402-INVALID-3": raises("TracerArrayConversionError", "first_rows(jnp.ones((2, 3)))"),
    "JIT402-INVALID-4": raises("TracerArrayConversionError"),
    "JIT403-VALID-0": ok("f(jnp.arange(4.0) - 1)", "host(jnp.arange(4.0) - 1)"),
    "JIT403-INVALID-0": raises("NonConcreteBooleanIndexError", "f(jnp.arange(4.0))"),
    "JIT403-INVALID-1": raises("NonConcreteBooleanIndexError", "clip_negative(jnp.arange(4.0))"),
    "JIT403-INVALID-2": raises("ConcretizationTypeError", "poles(jnp.array([1.0, 2.0, 1.0]))"),
    "JIT404-VALID-0": ok("f(jnp.arange(4.0))"),
    "JIT404-VALID-2": ok(
        "s = DecodeState(jnp.zeros((4, 2), bool))",
        "assert steps_left(s, 2).tolist() == [False, False, True, True]",
        "assert mask(s, 1).tolist() == [0.0, 1.0, 0.0, 0.0]",
    ),
    "JIT404-VALID-1": ok(f"g({KEY}, 3)", "host(3)"),
    "JIT404-INVALID-0": raises("TypeError", "f(3, jnp.ones(6), 0)"),
    "JIT404-INVALID-1": raises("TypeError", f"window({KEY}, jnp.ones(8), 1, 3)"),
    "JIT404-INVALID-2": raises("TypeError", f"chain_keys({KEY}, 3)"),
    "JIT404-INVALID-3": raises("TypeError"),
    "JIT501-VALID-0": ok("f(jnp.ones(3), {'w': 0}, 1.0)", "host([1, 2, 1])"),
    "JIT501-VALID-1": ok(
        "partial_sums(jnp.ones(3), 4)", "jax.jit(partial_sums, static_argnums=1)(jnp.ones(3), 4)"
    ),
    "JIT501-INVALID-0": raises("TypeError", "accumulate(jnp.zeros(3), 1, 2.0)", "eager()"),
    "JIT502-VALID-1": ok(f"roll(jnp.zeros(2), {KEY})"),
    "JIT502-VALID-2": ok("timed(jax.random.PRNGKey(0))"),
    "JIT502-VALID-3": ok(f"compare({KEY})"),
    "JIT502-VALID-0": ok(
        f"init({KEY}, 2)",
        f"layers({KEY}, [jnp.ones(2)])",
        f"loop({KEY}, 2)",
        f"pick({KEY}, True)",
        "make_data(3)",
        f"compare(jnp.ones(2), {KEY})",
        f"walk({KEY}, jnp.zeros(2))",
    ),
    "JIT502-INVALID-0": shows(
        f"w, b = init_linear({KEY}, 1, 4)", "assert (w[0] == b).all(), 'independent draws'"
    ),
    "JIT502-INVALID-1": shows(f"p = paths({KEY}, 3)", "assert (p[0] == p[1]).all()"),
    "JIT502-INVALID-2": shows(f"first, second = twice({KEY})", "assert first[1] == second[0]"),
    "JIT502-INVALID-4": shows(
        "import jax.numpy as jnp",
        "step = jax.random.normal(jax.random.PRNGKey(0), (2,))",
        "assert jnp.allclose(diffuse(jnp.zeros(2)), 3 * step)",  # three equal steps
    ),
    "JIT502-INVALID-5": shows("assert (first == second).all()"),  # the same draws
    "JIT502-INVALID-6": shows(
        "import jax.numpy as jnp",
        f"noise = rollout({KEY}, jnp.zeros(2))",
        "assert (noise[0] == noise[1]).all() and (noise[1] == noise[2]).all()",
        f"step = jax.random.normal({KEY}, (2,))",
        f"assert jnp.allclose(walk({KEY}, jnp.zeros(2)), 3 * step)",  # three equal steps
    ),
    "JIT502-INVALID-8": shows(
        "import jax.numpy as jnp",
        f"out = batch_dropout(jnp.ones((4, 8)), {KEY})",
        "assert (out == out[0]).all()",  # one dropout mask for the whole batch
    ),
    "JIT502-INVALID-9": shows(
        "import jax.numpy as jnp",
        "assert (dropout(jnp.ones(8)) == dropout(jnp.ones(8))).all()",  # one mask every call
    ),
    "JIT502-INVALID-10": shows(
        "import jax.numpy as jnp",
        "a = mask(jnp.ones(8), jax.random.key(1))",
        "assert (a == mask(jnp.ones(8), jax.random.key(2))).all()",  # the key given is ignored
    ),
    "JIT502-INVALID-11": shows(
        "import jax.numpy as jnp",
        f"out = add_noise({{'w': jnp.zeros(3), 'b': jnp.zeros(3)}}, {KEY})",
        "assert (out['w'] == out['b']).all()",  # both leaves got the same noise
    ),
    "JIT502-INVALID-14": shows(f"a, b = step({KEY})", "assert (a == b).all()"),
    "JIT502-INVALID-15": shows("assert (mask == (noise < 0.5)).all(), 'independent draws'"),
    "JIT502-INVALID-13": shows(
        f"p, q = Noisy({KEY}).noise()",
        "assert (p.ravel() == q.ravel()).all(), 'the same numbers'",
    ),
    "JIT502-INVALID-12": shows(
        "import jax.numpy as jnp",
        "assert ((forward(jnp.ones(8)) == 0) == (forward(2 * jnp.ones(8)) == 0)).all()",
    ),
    "JIT502-INVALID-7": shows(
        "import jax.numpy as jnp",
        "def reused(run):\n"
        "    with jax.debug_key_reuse(True):\n"
        "        try:\n"
        f"            run({KEY})\n"
        "        except Exception as e:\n"
        "            return type(e).__name__ == 'KeyReuseError'\n"
        "    return False",
        "assert reused(lambda k: step(jnp.ones(2), k))",
        "assert reused(make)",
    ),
    "JIT502-INVALID-3": shows(
        "import jax.numpy as jnp",
        "a = Agent(0)",
        "out = a.act(jnp.zeros(3))",
        "assert (out == 2 * jax.random.normal(a.key, (3,))).all()",  # noise == drift
        "assert (a.act(jnp.zeros(3)) == out).all()",  # and the same draws on every call
    ),
    "JIT503-VALID-0": ok("f(jnp.ones(3), 1, 2.0)", "g(jnp.ones(3))"),
    "JIT503-INVALID-0": shows(
        "x = jnp.ones(3)",
        "assert (reset(x, 1, 2.0) == x).all(), 'x was updated'",
        "assert (f(jnp.zeros((3, 3))) == 0).all(), 'x was updated'",
    ),
    "JIT503-INVALID-1": shows(
        "x = jnp.ones(3)",
        "assert double_in_place(x) is None and (x == 1).all(), 'the update was kept'",
    ),
    "JIT503-INVALID-2": shows("assert out[0] == 1.0, 'the first update was kept'"),
    "JIT504-VALID-0": ok("train(jnp.ones(3), [jnp.ones(3)] * 2)"),
    "JIT504-VALID-1": ok("run(jnp.ones(3), jnp.ones(3))"),
    "JIT504-VALID-2": ok("train(jnp.ones(3), [jnp.ones(3) for _ in range(3)])"),
    # Reading the donated buffer raises RuntimeError on JAX's Python dispatch path, and
    # ValueError from its C++ fast path once the operation is compiled for that shape (by
    # an earlier test in the same process: which one runs first depends on the order).
    "JIT504-INVALID-0": raises("RuntimeError|ValueError", "run(jnp.ones(3), jnp.ones(3))"),
    "JIT504-INVALID-1": raises("RuntimeError|ValueError", "fit(jnp.ones(3), [jnp.ones(3)] * 2)"),
    "JIT504-INVALID-2": raises("RuntimeError|ValueError", "run(jnp.ones(3), jnp.ones(3))"),
    # XLA refuses a buffer donated and passed again in the same call (jax#12627).
    "JIT504-INVALID-3": raises("JaxRuntimeError", "train(jnp.ones(3), 2)"),
    "JIT504-INVALID-4": raises(
        "RuntimeError|ValueError", "train(jnp.ones(3), jnp.ones(2), [1.0, 2.0])"
    ),
}


def _examples() -> dict[str, str]:
    return {
        f"{rule.code}-{kind}-{i}": textwrap.dedent(source).lstrip("\n")
        for rule in all_rules()
        for kind in ("VALID", "INVALID")
        for i, source in enumerate(getattr(rule, kind))
    }


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


# Every trace of a Python function to a jaxpr, as JAX's monitoring reports it.
_TRACES: list[str] = []


def _on_duration(event: str, duration: float, **kwargs: object) -> None:
    if event == "/jax/core/compile/jaxpr_trace_duration":
        _TRACES.append(event)


jax.monitoring.register_event_duration_secs_listener(_on_duration)


def _capture(logger: logging.Logger) -> list[logging.LogRecord]:
    handler = _Records()
    records = handler.records
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return records


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def test_every_example_has_a_run() -> None:
    assert sorted(RUNS) == sorted(_examples())


@pytest.mark.parametrize("name", sorted(_examples()))
def test_example_runs_as_documented(name: str) -> None:
    source = _examples()[name]
    run = RUNS[name]
    if run.reason is not None:
        pytest.skip(run.reason)
    lines = {line for line, _ in marked(source)}
    out = io.StringIO()
    module = types.ModuleType("jitlint_example")  # a real module: dataclasses look it up
    namespace: dict[str, object] = module.__dict__
    namespace["OUT"] = out

    def compiles(statement: str, eager: bool = False) -> int:
        """Count compilations; ``eager``: JAX's op-by-op ones too (eager `lax.cond`)."""
        with CompileRecorder(include_eager=eager) as recorder:
            exec(statement, namespace)
        return len(recorder.events)

    def traces(statement: str) -> int:
        before = len(_TRACES)
        exec(statement, namespace)
        return len(_TRACES) - before

    def execute(code: str, filename: str) -> BaseException | None:
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, filename, "exec"), namespace)
        except Exception as exc:
            return exc
        return None

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, module.__name__, module)
        error = execute(source, EXAMPLE)
        namespace.update(
            jax=jax, jnp=jnp, np=np, compiles=compiles, traces=traces, capture=_capture
        )
        results = [error] if error is not None or not run.statements else []
        if error is None:
            results += [execute(statement, "driver.py") for statement in run.statements]
    for result in results:
        if run.error is None:
            assert result is None, f"{name} must run cleanly: {result!r}"
            continue
        assert result is not None, f"{name} ran without the documented {run.error}"
        assert _names(result) & set(run.error.split("|")), f"{name}: {result!r}"
        at = _last_line(result.__traceback__, EXAMPLE)
        assert at in lines, f"{name} failed at line {at}, not a marked line {sorted(lines)}"
