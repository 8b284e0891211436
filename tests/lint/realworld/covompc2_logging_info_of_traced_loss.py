# source: https://github.com/LeCAR-Lab/CoVO-MPC/issues/2
# observed on jax 0.10.2 CPU: `logging.info(total_loss_mean)` runs while JAX traces the
#   training step, so it logs "JitTracer(float32[])" once, on the first call only, and never
#   a loss value (the report: "[INFO]: Traced<ShapedArray(float32[])>with<DynamicJaxprTrace
#   (level=3/0)>"). The report shows only _log_loss; the jitted training step that calls it
#   on the (320,)-shaped first element of total_loss is elided there and stands in here as
#   `update_step` under jax.jit. Added: the imports and the __main__ block.
# gap: other
import logging

import jax
import jax.numpy as jnp


def _log_loss(total_loss):
      total_loss_mean = jnp.mean(total_loss[0])
      logging.info(total_loss_mean)  # expect: JIT203


@jax.jit
def update_step(losses):  # stand-in for the elided caller
    total_loss = (losses, jnp.sum(losses))
    _log_loss(total_loss)
    return total_loss[1]


if __name__ == "__main__":
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            if record.name == "root":
                records.append(record.getMessage())

    logging.getLogger().addHandler(Collect())
    logging.getLogger().setLevel(logging.INFO)
    for step in range(3):
        update_step(jnp.full((320,), float(step)))
    # observed: line 17 logs once, at trace time, and what it logs is a tracer
    assert len(records) == 1, records
    assert "Tracer" in records[0], records
