"""The questions a rule may ask while the analyser walks a module: the ``RuleContext`` protocol.

Rules program against this protocol only. It names every query a rule needs (how a value is
traced, what a name refers to, where the walk is) and one way to act (``report``); the walker's
own state (frames, loop stacks, module facts) stays behind it, so the analysis can change
without touching a rule, and no rule can change what the walker does next.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import libcst as cst

from jitlint.model import Fix, Mode, Taint

if TYPE_CHECKING:
    from jitlint.analysis.kinds import Kind
    from jitlint.analysis.transforms import Transform
    from jitlint.fixes.model import NodeFix

# Static (static_argnums positions, static_argnames) of a jitted callable.
StaticSpec = tuple[frozenset[int], frozenset[str]]


class FunctionTarget(Protocol):
    """A function definition a name resolves to."""

    @property
    def fn(self) -> cst.FunctionDef:
        """Return the definition."""
        ...

    @property
    def is_method(self) -> bool:
        """Tell whether the name was ``self.<method>`` inside its class."""
        ...

    @property
    def cls(self) -> cst.ClassDef | None:
        """Return the class that defines the function, for a method."""
        ...

    @property
    def defined_here(self) -> bool:
        """Tell whether the function is defined in the module being linted."""
        ...

    @property
    def skip(self) -> int:
        """Return how many leading arguments of the call the function does not receive
        (`model.apply(variables, x)` runs `__call__(self, x)`)."""
        ...

    def import_qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through the imports of the module defining the function;
        None when that is the module being linted."""
        ...


@dataclass(frozen=True)
class ProjectGlobal:
    """A module-level name of another project module, read as ``mod.NAME``."""

    shown: str  # as written: `settings.LR`
    name: str  # NAME
    changes: str | None  # "reassigned" / "mutated" when it changes after import, else None
    mutable: bool  # bound to a list/dict/set


class Reporter(Protocol):
    """What the analyser needs of a rule: identity, where it applies, and its hooks."""

    @property
    def code(self) -> str:
        """Return the rule's code (``JIT101``)."""
        ...

    @property
    def name(self) -> str:
        """Return the rule's kebab-case name."""
        ...

    @property
    def modes(self) -> frozenset[Mode]:
        """Return the trace modes whose code the rule checks."""
        ...

    def hooks(self) -> Iterator[tuple[type[cst.CSTNode], Any]]:
        """Yield (libcst node class, hook) pairs."""
        ...

    @classmethod
    def url(cls) -> str | None:
        """Return the address of the rule's documentation page, if published."""
        ...


class RuleContext(Protocol):
    """The analyser as a rule hook sees it: read-only queries plus ``report``."""

    @property
    def module(self) -> cst.Module:
        """Return the module being linted (read only; fixes use it to add imports)."""
        ...

    # Values ----------------------------------------------------------------------
    @property
    def mode(self) -> Mode:
        """Return how the function being walked is traced."""
        ...

    @property
    def staged(self) -> bool:
        """Tell whether the code being walked is staged out to a jaxpr (jit, lax bodies):
        there every JAX operation returns a tracer, even on constants."""
        ...

    def taint(self, expr: cst.BaseExpression) -> Taint:
        """Return how traced ``expr`` is at this point of the walk."""
        ...

    def is_traced(self, expr: cst.BaseExpression) -> bool:
        """Tell whether ``expr`` certainly holds a traced value."""
        ...

    # Names -----------------------------------------------------------------------
    def qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through imports, unless a local shadows its head."""
        ...

    def import_qualname(self, expr: cst.BaseExpression) -> str | None:
        """Resolve a dotted name through the module's imports alone (no shadowing check)."""
        ...

    def transform(self, expr: cst.BaseExpression) -> Transform | None:
        """Return the transform ``expr`` names (a name, a factory call or a ``partial``)."""
        ...

    def transform_named(self, qualname: str | None) -> Transform | None:
        """Return the transform with this qualified name (configured wrappers included)."""
        ...

    def bound_jit_call(self, name: str) -> cst.Call | None:
        """Return the jit call a name of the current scope holds at this point of the walk
        (`fast = jax.jit(f)`, the latest binding when the name is rebound); None otherwise."""
        ...

    def jit_spec(self, func: cst.BaseExpression) -> StaticSpec | None:
        """Return the static arguments of a jitted callable ``func`` names, if it is one."""
        ...

    def def_spec(self, fn: cst.FunctionDef) -> StaticSpec | None:
        """Return the static parameters (by position, `self` included) of a definition its
        decorators jit (`@partial(jax.jit, static_argnums=0)`), or None."""
        ...

    def resolve_function(
        self, expr: cst.BaseExpression, needle: bytes | None = None
    ) -> FunctionTarget | None:
        """Return the function definition ``expr`` refers to, if the project defines it.

        ``needle``: a module not read yet is read only if its text contains it (cheap).
        """
        ...

    def project_global(self, expr: cst.BaseExpression) -> ProjectGlobal | None:
        """Return the global ``expr`` reads when it is ``mod.NAME...`` of another project
        module (``mod`` imported in any spelling)."""
        ...

    def is_outer(self, name: str) -> bool:
        """Tell whether ``name`` refers to state outside the traced computation."""
        ...

    def is_module_global(self, name: str) -> bool:
        """Tell whether ``name`` read here refers to a module-level binding."""
        ...

    def binds_container(self, name: str) -> bool | None:
        """Tell whether the nearest scope binding ``name`` binds a list/dict/set literal.

        None when no enclosing function or module scope being walked binds it.
        """
        ...

    # Module facts ------------------------------------------------------------------
    def is_imported(self, name: str) -> bool:
        """Tell whether the module binds ``name`` by an import."""
        ...

    def defines_function(self, name: str) -> bool:
        """Tell whether the module defines a function called ``name``."""
        ...

    def defines_class(self, name: str) -> bool:
        """Tell whether the module defines a class called ``name``."""
        ...

    def mentions(self, word: str, target: FunctionTarget | None = None) -> bool:
        """Tell whether the text of the module being walked (or of the module defining
        ``target``) contains ``word``: a cheap test before a walk that needs it."""
        ...

    def may_call(self, name: str) -> bool:
        """Tell whether the module's text may call ``name`` (`name(`, `obj.name(`, outside
        its own `def`): False means it certainly does not. A cheap filter before a walk."""
        ...

    def call_sites(self, fn: cst.FunctionDef) -> list[cst.Call]:
        """Return the calls of module-level function ``fn`` in this module: of its name, and
        of the module-level names bound once to a transform of it."""
        ...

    def attribute_reads(self, attr: str) -> int:
        """Count the attributes named ``attr`` the module reads or writes (`self.f`)."""
        ...

    def method_call_sites(self, cls: cst.ClassDef, fn: cst.FunctionDef) -> list[cst.Call]:
        """Return the calls `obj.<fn>(...)` in this module on a module-level name bound once
        to an instance of ``cls``."""
        ...

    def custom_vjp_nondiff(self, func: cst.BaseExpression) -> tuple[list[str], frozenset[str]]:
        """Return the positional parameters of the `@jax.custom_vjp` function ``func`` calls
        and those its `nondiff_argnums` / `nondiff_argnames` name (none: not one, or not
        known)."""
        ...

    def array_fields(self, cls: cst.ClassDef) -> frozenset[str]:
        """Return the fields of class ``cls`` of this module annotated as arrays and not
        kept static (`w: jax.Array`, `Float[Array, "n"]`); none for a class of elsewhere."""
        ...

    def static_fields(self, cls: str) -> frozenset[str]:
        """Return the fields of class ``cls`` of this module that its pytree keeps static
        (`field(pytree_node=False)`, `eqx.field(static=True)`, `register_dataclass`'s
        `meta_fields`)."""
        ...

    def assignment_count(self, name: str) -> int:
        """Return how many module-level assignments bind ``name``."""
        ...

    def is_rebound(self, name: str) -> bool:
        """Tell whether the module rebinds global ``name`` (augmented or `global` writes)."""
        ...

    def rebound_by_function(self, name: str) -> bool:
        """Tell whether a function of the module rebinds global ``name`` (`global name`)."""
        ...

    def is_mutated(self, name: str) -> bool:
        """Tell whether module global ``name`` is mutated in place somewhere."""
        ...

    def is_mutable_global(self, name: str) -> bool:
        """Tell whether module global ``name`` is bound to a mutable container."""
        ...

    def is_stale_prone(self, name: str) -> bool:
        """Tell whether module global ``name`` changes after a trace could read it."""
        ...

    def is_logger(self, name: str) -> bool:
        """Tell whether module global ``name`` is a logger (``logging.getLogger(...)``)."""
        ...

    # Where the walk is -------------------------------------------------------------
    @property
    def scope(self) -> cst.Module | cst.FunctionDef | cst.Lambda | cst.ClassDef:
        """Return the innermost scope being walked."""
        ...

    @property
    def enclosing_class(self) -> cst.ClassDef | None:
        """Return the class whose method is being walked, if any."""
        ...

    def self_class(self, name: str = "self") -> cst.ClassDef | None:
        """Return the class whose instance ``self`` (or ``cls``) names here: in a method, or
        in a function nested in one that does not bind the name itself."""
        ...

    @property
    def functions_given(self) -> frozenset[tuple[str, int]]:
        """Return the functions the callers of the enclosing functions give their
        parameters, by parameter and identity."""
        ...

    @property
    def is_stateful(self) -> bool:
        """Tell whether the transform carries attribute writes back out (flax nnx/linen)."""
        ...

    @property
    def traced_afresh(self) -> bool:
        """Tell whether the trace walked is made anew each time its transform's result is
        called (`jax.jit(f)(x)`, or handed to a function that only calls it)."""
        ...

    @property
    def filters_arrays(self) -> bool:
        """Tell whether the walk is under an equinox filter transform: only array leaves of
        the arguments are traced, Python values (bools, callables) stay static."""
        ...

    @property
    def owns_self(self) -> bool:
        """Tell whether the method's object was constructed inside the trace being walked."""
        ...

    def nnx_param(self, name: str) -> str | None:
        """Say which flax nnx object a parameter of the function a transform traces holds,
        when its annotation or its callers show one: "optimizer" (`nnx.Optimizer`),
        "module" (another nnx object: a module, a project class deriving from one)."""
        ...

    def outer_param(self, name: str) -> bool:
        """Tell whether ``name`` is a parameter of the function walked that its caller gave
        an object from outside the trace it runs in (a name it closed over from there)."""
        ...

    def enclosing_self(self, name: str) -> bool | None:
        """For ``self`` (or ``cls``) closed over from an enclosing method: whether that
        method's object was constructed inside the trace; None when ``name`` is not an
        enclosing method's first parameter."""
        ...

    def stored_on_self(self, attr: str) -> bool:
        """Tell whether the function walked has already stored a value in `self.<attr>` of
        its static `self` at this point of the walk, itself or through a method of the same
        `self` it called (`self.fit(p)` storing `self.gp`): a read now gets that value."""
        ...

    def enclosing_method(self, name: str) -> tuple[cst.ClassDef, cst.FunctionDef] | None:
        """For ``self`` closed over from an enclosing method outside the trace: that method
        and its class; None when ``name`` is not such a method's parameter."""
        ...

    def declares_outer(self, name: str) -> bool:
        """Tell whether the scope declares ``name`` ``global`` or ``nonlocal``."""
        ...

    @property
    def in_loop(self) -> bool:
        """Tell whether the walk is inside a ``for``/``while`` loop body."""
        ...

    @property
    def in_sweep(self) -> bool:
        """Tell whether the innermost loop around the walk runs over a display of a few
        constants (`for axis in (2, -1):`): a configuration each, not the same work again."""
        ...

    @property
    def after_raise(self) -> bool:
        """Tell whether the code being walked is a branch of an ``if`` on a traced value in
        staged code: JAX raises at the test, so the branch never runs as written."""
        ...

    @property
    def in_branch(self) -> bool:
        """Tell whether the code being walked is (called from) a branch `lax.cond` or
        `lax.switch` traces: every branch is traced, whichever one a call selects."""
        ...

    @property
    def batched(self) -> bool:
        """Tell whether the code being walked is (called from) a function a `vmap` maps
        over a batch, once per element."""
        ...

    @property
    def repeats(self) -> bool:
        """Tell whether the code being walked runs many times per run of its caller: in a
        ``for``/``while`` body, or in a body a ``lax`` loop (``fori_loop``, ``scan``,
        ``while_loop``, ``map``) calls, and the functions it calls."""
        ...

    @property
    def loop_body(self) -> str | None:
        """Return the ``lax`` loop (``jax.lax.scan``, ...) that calls the function being
        walked as its body, directly; None elsewhere."""
        ...

    def defined_in_loop(self, name: str) -> bool:
        """Tell whether ``name`` is a function defined inside an enclosing loop."""
        ...

    def binding_scope(self, name: str) -> cst.CSTNode | None:
        """Return the innermost function (or lambda) of the walk whose parameter or local
        ``name`` is; None when it is the module's (or unbound)."""
        ...

    def in_condition(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is (part of) the test of an if/while/ternary/assert."""
        ...

    def is_statement_call(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is a call used as a statement (its result discarded)."""
        ...

    def is_write_root(self, node: cst.CSTNode) -> bool:
        """Tell whether ``node`` is the name a mutating method call (``x.append``) writes to."""
        ...

    def is_field_truthiness(self, test: cst.BaseExpression) -> bool:
        """Tell whether ``test`` only asks if a pytree field is set (``if state.ema:``)."""
        ...

    def rebound_after_trace(self, name: str) -> bool:
        """Tell whether a closed-over local of an enclosing function is rebound after the
        traced function was made (the trace keeps the old value)."""
        ...

    def class_named(self, name: str) -> cst.ClassDef | None:
        """Return the module-level class ``name`` defines, if it does."""
        ...

    def project_class(self, expr: cst.BaseExpression) -> cst.ClassDef | None:
        """Return the project class ``expr`` names (defined here or imported), if it does."""
        ...

    def kind_of(self, expr: cst.BaseExpression) -> Kind | None:
        """Return what ``expr`` holds at this point (JAX array, mask, NumPy, container)."""
        ...

    # Acting ------------------------------------------------------------------------
    def report(
        self, rule: Reporter, node: cst.CSTNode, message: str, fix: Fix | NodeFix | None = None
    ) -> None:
        """Record a finding of ``rule`` at ``node`` (once per node)."""
        ...
