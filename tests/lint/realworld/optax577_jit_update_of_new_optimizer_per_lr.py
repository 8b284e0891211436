# source: https://github.com/google-deepmind/optax/issues/577 (colehaus's example in the
#   thread: "Optax recompiles when learning rate changes")
# observed on jax 0.10.2 CPU (optax 0.2.8): each call of main builds a new optimizer and
#   jits its fresh `tx.update`, with the learning rate baked into the program as a
#   constant (the printed StableHLO holds `4.394530e-01`); a second learning rate gives a
#   second trace and a different program, so a sweep never reuses a compilation. The
#   thread's workaround is optax.inject_hyperparams. Added: the imports of `ndarray` and
#   `bfloat16`, and the __main__ block.
# gap: per-call-recompile
import io
import contextlib

import jax
import jax.numpy as jnp
import optax
from jax.numpy import bfloat16
from numpy import ndarray


def main(lr: ndarray[bfloat16]):
    tx = optax.adafactor(learning_rate=lr, weight_decay_rate=lr, momentum=lr, dtype_momentum=bfloat16)
    model = jnp.ones(8, bfloat16)
    opt_state = tx.init(model)
    print(jax.jit(tx.update).lower(model, opt_state, model).as_text())  # expect: JIT301


if __name__ == "__main__":
    import jax.monitoring

    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: traces.append(event)
        if event == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    texts = []
    for lr in (0.44, 0.25):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(jnp.array(lr, bfloat16))
        texts.append(out.getvalue())
    # observed: line 24 jits a fresh update per call: the learning rate is a constant of each program
    assert texts[0] != texts[1]
    assert "4.394530e-01" in texts[0] and "2.500000e-01" in texts[1]
    assert len(traces) >= 2, traces
