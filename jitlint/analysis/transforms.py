"""Know which JAX callables trace the functions given to them, and how."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jitlint.analysis.knowledge import words
from jitlint.model import Mode


@dataclass(frozen=True)
class Transform:
    """Describe a transform: its mode and where its traced functions sit in a call."""

    qualname: str
    mode: Mode
    # Positional indices and keyword names of the function arguments it traces.
    fn_positions: tuple[int, ...] = (0,)
    fn_keywords: tuple[str, ...] = ("fun", "f")
    # Whether a positional argument can be a list/tuple of functions (lax.switch).
    fn_sequence: bool = False
    # Whether the transform caches its compiled result (jit) and accepts static args.
    caches: bool = False
    # Position of `in_axes` when given positionally (jax.vmap(f, (0, None))).
    in_axes_pos: int | None = None
    # Whether the function's parameters are traced: a numpyro model gets its data as is,
    # and only what `numpyro.sample` returns inside it is traced.
    traces_params: bool = True
    # Whether it stages its function out to a jaxpr: then every JAX operation inside returns
    # a tracer, even on constants (omnistaging). vmap and grad alone do not: operations on
    # constants stay concrete there.
    stages: bool = True
    # Whether it differentiates only some arguments (grad: `argnums`, 0 by default; the
    # others stay concrete), and the position of `argnums` when given positionally.
    differentiates_argnums: bool = False
    argnums_pos: int | None = None
    # How many leading positional arguments the transform itself always passes to the
    # function (lax.scan: carry and x; odeint: y and t): traced even where they have defaults.
    passes: int = 0
    # Position from which the transform's own positional arguments are handed on to the
    # function after the ones it passes (apply_along_axis(f, axis, arr, *args)).
    forwards_from: int | None = None

    def function_args(self, call: cst.Call) -> list[cst.BaseExpression]:
        """Return the arguments of ``call`` (a call of this transform) that it traces."""
        out: list[cst.BaseExpression] = []
        positional = [a for a in call.args if a.keyword is None and not a.star]
        for i in self.fn_positions:
            if i < len(positional):
                out.append(positional[i].value)
        out.extend(
            a.value
            for a in call.args
            if a.keyword is not None and a.keyword.value in self.fn_keywords
        )
        return out


def _t(names: str, mode: Mode, **kwargs: object) -> dict[str, Transform]:
    return {n: Transform(n, mode, **kwargs) for n in names.split()}  # type: ignore[arg-type]


# optax optimizers whose first argument, `learning_rate`, may be a schedule: a function of
# the step count.
OPTAX_SCHEDULED = words(
    """
    adabelief adadelta adafactor adagrad adam adamax adamaxw adamw adan amsgrad fromage lamb
    lars lion nadam nadamw noisy_sgd novograd optimistic_adam_v2 optimistic_gradient_descent
    radam rmsprop scale_by_learning_rate sgd sign_sgd signum yogi contrib.acprop
    contrib.ademamix contrib.adopt contrib.cocob contrib.dadapt_adamw contrib.dog contrib.dowg
    contrib.galore contrib.madgrad contrib.muon contrib.prodigy contrib.scale_by_madgrad
    contrib.schedule_free_adamw contrib.schedule_free_sgd contrib.simplified_ademamix
    """
)

TRANSFORMS: dict[str, Transform] = {
    **_t(
        "jax.jit jax.pmap equinox.filter_jit equinox.filter_pmap flax.nnx.jit flax.linen.jit "
        "flax.nnx.pmap jax.api.jit jax.experimental.pjit.pjit "
        # numpyro's own spelling: `jit(fn, *args, **kwargs)` unless control flow is disabled
        "numpyro.util.maybe_jit",
        Mode.JIT,
        caches=True,
    ),
    **_t(
        "jax.checkpoint jax.remat jax.ad_checkpoint.checkpoint jax.ad_checkpoint.remat "
        "jax.experimental.shard_map.shard_map jax.shard_map jax.sharding.shard_map "
        "equinox.filter_checkpoint flax.nnx.remat flax.nnx.shard_map jax.eval_shape "
        "flax.linen.remat flax.linen.checkpoint "
        "jax.make_jaxpr jax.xla_computation",
        Mode.TRACE,
    ),
    **_t("jax.numpy.vectorize equinox.filter_vmap flax.nnx.vmap", Mode.TRACE, stages=False),
    **_t(
        "jax.grad jax.value_and_grad jax.jacfwd jax.jacrev jax.hessian",
        Mode.GRAD,
        stages=False,
        differentiates_argnums=True,
        argnums_pos=1,
    ),
    # equinox differentiates its first argument; nnx takes `argnums` by keyword only.
    **_t(
        "equinox.filter_grad equinox.filter_value_and_grad flax.nnx.grad flax.nnx.value_and_grad",
        Mode.GRAD,
        stages=False,
        differentiates_argnums=True,
    ),
    **_t("jax.jvp jax.vjp jax.linearize", Mode.GRAD, stages=False),
    **_t("jax.vmap", Mode.TRACE, in_axes_pos=1, stages=False),
    # func1d(row, *args) on each row, under vmap.
    **_t(
        "jax.numpy.apply_along_axis",
        Mode.TRACE,
        fn_keywords=("func1d",),
        stages=False,
        passes=1,
        forwards_from=3,
    ),
    # Each callable of funclist gets x (and *args) inside lax.switch: staged.
    **_t(
        "jax.numpy.piecewise",
        Mode.TRACE,
        fn_positions=(2,),
        fn_keywords=("funclist",),
        fn_sequence=True,
        passes=1,
        forwards_from=3,
    ),
    # Library entry points that trace the function they are given.
    **_t("diffrax.ODETerm diffrax.ControlTerm", Mode.TRACE, passes=3),  # vf(t, y, args)
    **_t("jax.experimental.ode.odeint", Mode.TRACE, passes=2),  # func(y, t, *args)
    **_t("jax.scipy.optimize.minimize", Mode.TRACE, passes=1),  # fun(x, *args)
    **_t("jax.lax.custom_root jax.lax.custom_linear_solve", Mode.TRACE),
    # Probabilistic programs: the model (and guide) are traced inside the kernel's jitted
    # step. Not a cached trace of their own: a new MCMC/SVI object traces them afresh.
    **_t(
        "numpyro.infer.NUTS numpyro.infer.HMC numpyro.infer.SA numpyro.infer.BarkerMH "
        "numpyro.infer.mcmc.NUTS numpyro.infer.hmc.NUTS numpyro.infer.hmc.HMC",
        Mode.TRACE,
        fn_keywords=("model",),
        traces_params=False,
    ),
    **_t(
        "numpyro.infer.SVI numpyro.infer.Predictive numpyro.infer.svi.SVI",
        Mode.TRACE,
        fn_positions=(0, 1),
        fn_keywords=("model", "guide"),
        traces_params=False,
    ),
    # optax optimizers call a learning-rate schedule with the step count in `update`, which
    # a training step runs under jit (OPTAX_SCHEDULED is checked against optax in the tests).
    **_t(
        " ".join(f"optax.{name}" for name in sorted(OPTAX_SCHEDULED)),
        Mode.TRACE,
        fn_keywords=("learning_rate",),
        passes=1,
    ),
    **_t("optax.scale_by_schedule", Mode.TRACE, fn_keywords=("step_size_fn",), passes=1),
    **_t("jax.lax.cond", Mode.TRACE, fn_positions=(1, 2), fn_keywords=("true_fun", "false_fun")),
    **_t(
        "jax.lax.switch", Mode.TRACE, fn_positions=(1,), fn_keywords=("branches",), fn_sequence=True
    ),
    **_t("jax.lax.scan", Mode.TRACE, fn_keywords=("f",), passes=2),  # f(carry, x)
    **_t("jax.lax.map", Mode.TRACE, fn_keywords=("f",), passes=1),  # f(x)
    **_t("jax.lax.associative_scan", Mode.TRACE, fn_keywords=("fn",), passes=2),  # fn(a, b)
    # body_fun(i, val)
    **_t("jax.lax.fori_loop", Mode.TRACE, fn_positions=(2,), fn_keywords=("body_fun",), passes=2),
    **_t(
        "jax.lax.while_loop",
        Mode.TRACE,
        fn_positions=(0, 1),
        fn_keywords=("cond_fun", "body_fun"),
        passes=1,  # cond_fun(val), body_fun(val)
    ),
}

# `lax` control flow that, called outside any trace, caches the trace of each function
# object it is given as jit does (checked on jax 0.10.2: a closed-over value rebound between
# two eager `fori_loop`, `scan`, `while_loop` or `cond` calls keeps its first value), and
# compiles a new function object again.
EAGER_CACHED = frozenset(
    {
        "jax.lax.cond",
        "jax.lax.switch",
        "jax.lax.scan",
        "jax.lax.map",
        "jax.lax.fori_loop",
        "jax.lax.while_loop",
    }
)

# `jax.tree_util.Partial` binds like `functools.partial`; its bound arguments are pytree leaves.
PARTIAL = frozenset({"functools.partial", "jax.tree_util.Partial"})

# Calls that return a traced value inside a traced function whatever their arguments: the
# sample sites of a probabilistic program.
TRACED_RESULTS = frozenset(
    {"numpyro.sample", "numpyro.param", "numpyro.primitives.sample", "numpyro.primitives.param"}
)

# Functions that call the function they are given right away, once per leaf of the pytrees
# that follow it: inside traced code that function runs at trace time on traced leaves.
# Value: how many leading parameters of the callback are not leaves (the key path).
TREE_MAPS: dict[str, int] = {
    "jax.tree.map": 0,
    "jax.tree_map": 0,
    "jax.tree_util.tree_map": 0,
    "jax.tree.map_with_path": 1,
    "jax.tree_util.tree_map_with_path": 1,
}


def lookup(qualname: str | None, extra: frozenset[str]) -> Transform | None:
    """Return the transform a resolved name denotes, including configured jit wrappers."""
    if qualname is None:
        return None
    found = TRANSFORMS.get(qualname)
    if found is not None:
        return found
    # A module-local name (no dot) also matches a configured dotted wrapper of that name.
    if qualname in extra or (
        "." not in qualname and any(e.endswith("." + qualname) for e in extra)
    ):
        return Transform(qualname, Mode.JIT, caches=True)
    return None
