# source: https://github.com/jax-ml/jax/issues/2323 (the reporter's fori_loop body; the
#   thread does not show the data or the loop call, so the imports, a `packed_input` holding
#   its batch sizes as an array, the data and the fori_loop call at the end are added)
# observed on jax 0.10.2 CPU: TracerIntegerConversionError in dynamic_slice_in_dim: the
#   slice size `batch_size`, read from the array with the traced loop index, is a tracer.
# gap: other
from collections import namedtuple

import jax.numpy as jnp
from jax import lax
from jax.lax import dynamic_slice_in_dim

PackedInput = namedtuple("PackedInput", ["batch_sizes"])
packed_input = PackedInput(batch_sizes=jnp.array([3, 2, 1]))

def body_fun(i, val):
    batch_sizes, packed_input_data, input_offset = val

    batch_size = packed_input.batch_sizes[i]

    #batch = packed_input_data[input_offset:input_offset+batch_size]
    batch = dynamic_slice_in_dim(packed_input_data, input_offset, batch_size)  # expect: JIT404
    input_offset += batch_size

    return batch_sizes, packed_input_data, input_offset

packed_input_data = jnp.arange(12.0).reshape(6, 2)
lax.fori_loop(0, 3, body_fun, (packed_input.batch_sizes, packed_input_data, 0))
