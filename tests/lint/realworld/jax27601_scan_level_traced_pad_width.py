# source: https://github.com/jax-ml/jax/issues/27601
# observed on jax 0.10.2 CPU: the scan body's loop variable `current_level` is a tracer,
#   so padl/padr are traced and jnp.pad raises ConcretizationTypeError (the pad widths
#   must be concrete) on the `res_lo_padded = jnp.pad(...)` line while scan traces
#   scan_body. Added: the imports and stand-ins for what the report leaves out: an averaging
#   filter `filt` of length `filt_len` = 4 in OIT layout, `precision`, `level` = 3 and a
#   (batch, channel, time) `data` array. The traced `dilation` also reaches
#   conv_general_dilated's rhs_dilation, which would fail the same way, but tracing never
#   gets past jnp.pad (one raising bug per file), so only the pad line is labelled.
# tolerated after the first scoring: line 33 gives the same traced `dilation` to
#   conv_general_dilated's rhs_dilation, which raises under jit too (checked), hidden by line 32.
# gap: omnistaging
import jax
import jax.numpy as jnp
import numpy as np

filt_len = 4
filt = jnp.ones((2, 1, filt_len), dtype=jnp.float32) / filt_len  # stand-in: 2 outputs, 1 input
precision = "highest"
level = 3
data = jnp.ones((1, 1, 64), dtype=jnp.float32)


def scan_body(res_lo, current_level):
    # current_level is expected to be static, but here it's traced.
    dilation = 2 ** current_level
    padl = dilation * (filt_len // 2 - 1)
    padr = dilation * (filt_len // 2)
    # Compute pad_config for jnp.pad: it requires static integer values.
    pad_config = [(0, 0)] * (res_lo.ndim - 1) + [(padl, padr)]

    res_lo_padded = jnp.pad(res_lo, pad_config, mode="wrap")  # expect: JIT404
    res = jax.lax.conv_general_dilated(  # tolerate: JIT404
        lhs=res_lo_padded,
        rhs=filt,
        padding=[(0, 0)],
        window_strides=[1],
        rhs_dilation=[dilation],
        dimension_numbers=("NCT", "OIT", "NCT"),
        precision=jax.lax.Precision(precision),
    )
    res_lo_new, res_hi = jnp.split(res, 2, axis=1)
    return res_lo_new, res_hi.squeeze(1)

# Use lax.scan with a traced sequence.
final_res_lo, details = jax.lax.scan(scan_body, data, np.arange(level))
