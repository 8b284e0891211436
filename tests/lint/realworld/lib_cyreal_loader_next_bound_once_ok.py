# source: https://github.com/smorad/cyreal/blob/4bef7fbcf424fb73f5813d7b46fb65fe5e7261c5/cyreal/loader.py
#   (the DataLoader of "Fix recompile bug (#24)"; the loop is the README loop of that commit)
# observed on jax 0.10.2 CPU: `jax.jit(loader.next)(state)` inside the loop traces `next`
#   once: __post_init__ stores the bound method on the instance (`self.next = self.next`),
#   so every `loader.next` is the same object and each new jax.jit wrapper hits the cache
#   of the first. Added: the future/typing/jax imports of the module, `Source = Any` and a
#   small in-memory batched source in place of cyreal's ArraySource + BatchTransform +
#   DevicePutTransform (marked stand-in), the data of the commit's test_runtime, and the
#   __main__ block that runs the README loop and counts traces.
# gap: per-call-recompile
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Tuple

import jax
import jax.numpy as jnp


# --- stand-in (added): a minimal in-memory batched source in place of cyreal's
# ArraySource(data, ordering="sequential") + BatchTransform(batch_size=2) + DevicePutTransform()
Source = Any


@dataclass
class _BatchedArraySource:
    data: dict
    batch_size: int = 2

    def __post_init__(self) -> None:
        n = next(iter(self.data.values())).shape[0]
        self.steps_per_epoch = n // self.batch_size

    def init_state(self, key: jax.Array):
        return {"index": jnp.array(0, dtype=jnp.int32), "key": key}

    def next(self, state):
        n = self.steps_per_epoch * self.batch_size
        idx = (state["index"] + jnp.arange(self.batch_size)) % n
        batch = jax.tree_util.tree_map(lambda x: x[idx], self.data)
        mask = jnp.ones((self.batch_size,), dtype=bool)
        new_state = {"index": (state["index"] + self.batch_size) % n, "key": state["key"]}
        return batch, mask, new_state
# --- end of stand-in


@jax.tree_util.register_pytree_node_class
@dataclass
class _LoaderState:
    inner_state: Any

    def tree_flatten(self):
        return (self.inner_state,), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        (inner_state,) = children
        return cls(inner_state=inner_state)


class _LoaderIterator:
    """Python iterator that walks a loader state for a fixed number of steps."""

    def __init__(self, loader: DataLoader, state: _LoaderState, steps: int | None) -> None:
        self._loader = loader
        self._state = state
        self._remaining = steps

    def __iter__(self):
        return self

    def __next__(self):
        if self._remaining is not None:
            if self._remaining <= 0:
                raise StopIteration
            self._remaining -= 1

        batch, self._state, mask = self._loader.next(self._state)
        return batch, mask

    @property
    def state(self) -> _LoaderState:
        return self._state


@dataclass
class DataLoader:
    """Composable pipeline constructed from explicit stages."""

    pipeline: Source | Sequence[Any]
    """Either a Source or a sequence of stages to compose into a data pipeline."""

    def __post_init__(self) -> None:
        self._source = self._coerce_pipeline(self.pipeline)
        self.steps_per_epoch = self._source.steps_per_epoch
        # Very important to avoid JIT recompilation due to method rebinding!
        # Otherwise, calling `loader.next` performs dynamic lookup on the method. 
        # Since `next` is not a staticmethod, this lookup returns a new bound method object on every call.
        # This causes a cache miss in the JIT cache because the function object is different! 
        self.next = self.next  # type: ignore[assignment]

    def _coerce_pipeline(self, pipeline: Source | Sequence[Any]) -> Source:
        if self._looks_like_source(pipeline):
            return pipeline  # type: ignore[return-value]

        if isinstance(pipeline, Sequence):
            if not pipeline:
                raise ValueError("Pipeline sequence must contain at least one stage.")
            stages = list(pipeline)
            head = stages[0]
            if not self._looks_like_source(head):
                raise TypeError("First pipeline stage must implement the Source protocol.")
            current: Source = head  # type: ignore[assignment]
            for stage in stages[1:]:
                current = self._attach_stage(current, stage)
            return current

        raise TypeError("`pipeline` must be a Source or a sequence of stages.")

    @staticmethod
    def _looks_like_source(candidate: Any) -> bool:
        return all(hasattr(candidate, attr) for attr in ("init_state", "next", "steps_per_epoch"))

    def _attach_stage(self, current: Source, stage: Any) -> Source:
        radd = getattr(stage, "__radd__", None)
        if callable(radd):
            bound = radd(current)
            if bound is not NotImplemented:
                if not self._looks_like_source(bound):
                    raise TypeError("Stage did not return a valid Source when composed via '+'.")
                return bound

        if callable(stage):
            bound = stage(current)
            if not self._looks_like_source(bound):
                raise TypeError("Callable pipeline stage must return a Source.")
            return bound

        raise TypeError("Pipeline entries after the first must be transforms or callables returning Sources.")

    def init_state(self, key: jax.Array) -> _LoaderState:
        """Returns a new loader state using the given random key."""
        inner_state = self._source.init_state(key)
        return _LoaderState(inner_state=inner_state)

    def next(self, state: _LoaderState) -> Tuple[PyTree, _LoaderState, jax.Array]:
        """Run the pipeline for one step, returning the batch, new loader state, and mask.
        
        This function is jittable and can be used in `jax.lax.scan` or jitted directly for fast iteration.

        ```python
        state = loader.init_state(jax.random.key(0))
        for _ in range(loader.steps_per_epoch):
            batch, state, mask = loader.next(state)
            ...
        ```
        """
        batch, mask, inner_state = self._source.next(state.inner_state)
        return batch, _LoaderState(inner_state=inner_state), mask

    def iterate(self, state: _LoaderState, *, steps: int | None = None) -> _LoaderIterator:
        """Return a Python iterator over loader outputs.

        ```python
        for batch, mask in loader.iterate(state):
            ...
        ```
        WARNING: This method is slow compared to using `loader.scan_epoch` or jitting `loader.next`.
        """

        if steps is None:
            steps = self.steps_per_epoch
        elif steps < 0:
            raise ValueError("steps must be non-negative or None.")
        return _LoaderIterator(self, state, steps)

    def scan_epoch(
        self,
        state: _LoaderState,
        carry: Any,
        body_fn: Callable[[Any, PyTree, jax.Array], Tuple[Any, Any]],
        unroll: bool | int = False,
    ):
        """Run a full epoch via `jax.lax.scan` with constant-shape batches.
        
        ```python
        def body_fn(model_state, batch, mask):
            ...
            return new_model_state, None

        state, batch = loader.scan_epoch(state, model_state, body_fn)
        ```
        """
        def _body(loop_state, _):
            loader_state, loop_carry = loop_state
            batch, loader_state, mask = self.next(loader_state)
            new_carry, output = body_fn(loop_carry, batch, mask)
            return (loader_state, new_carry), output

        (loader_state, final_carry), outputs = jax.lax.scan(
            _body, (state, carry), length=self.steps_per_epoch, unroll=unroll
        )
        return loader_state, final_carry, outputs

data = {"inputs": jnp.arange(10, dtype=jnp.float32).reshape(10, 1)}
loader = DataLoader(pipeline=[_BatchedArraySource(data)])
state = loader.init_state(jax.random.key(0))


if __name__ == "__main__":
    events = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: events.append(name)
    )
    for epoch in range(2):
        for _ in range(loader.steps_per_epoch):
            batch, state, mask = jax.jit(loader.next)(state)
            ... # Train your network
    assert events.count("/jax/core/compile/jaxpr_trace_duration") == 1, events
    assert float(batch["inputs"][0, 0]) == 8.0, batch
