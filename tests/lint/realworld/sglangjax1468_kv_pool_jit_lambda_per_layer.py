# source: https://github.com/sgl-project/sglang-jax/pull/1468
#   (python/sgl_jax/srt/mem_cache/memory_pool.py at 687e8fcc^, the parent of "perf(mem_cache):
#   cache jitted KV zero-allocator to avoid per-layer retrace": "_create_buffers() ... call
#   jax.jit(lambda: jnp.zeros(...)) once per layer in a loop. JAX sees a new Python function
#   object each iteration and re-traces every time")
# observed on jax 0.10.2 CPU: building one pool of 4 layers traces the zero-allocator
#   lambda 4 times, and a second pool of the same shape traces it 4 times again; every
#   layer pays a fresh trace and lowering for identical buffers. Kept verbatim: KVCache's
#   __init__, MHATokenToKVPool's __init__ and _create_buffers, get_dtype_packing (from
#   sgl_jax/srt/kernels/ragged_paged_attention/util.py, with `dtypes.itemsize_bits`
#   spelled `jnp.dtype(dtype).itemsize * 8`), logger and GB. Left out: the pytree
#   methods, _calculate_memory_usage (a no-op stand-in) and the rest of the module.
#   Added: a one-device mesh with the "data" and "tensor" axes.
# gap: per-call-recompile
import abc
import logging
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

logger = logging.getLogger(__name__)

GB = 1024 * 1024 * 1024


def get_dtype_packing(dtype):
    bits = jnp.dtype(dtype).itemsize * 8
    return 32 // bits


class KVCache(abc.ABC):
    @abc.abstractmethod
    def __init__(
        self,
        size: int,
        page_size: int,
        dtype: jnp.dtype,
        layer_num: int,
        mesh: Mesh,
        start_layer: int | None = None,
        end_layer: int | None = None,
    ):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.layer_num = layer_num
        self.mesh = mesh
        self.start_layer = start_layer or 0
        self.end_layer = end_layer or layer_num - 1
        self.mem_usage = 0


class MHATokenToKVPool(KVCache):
    def __init__(
        self,
        size: int,
        page_size: int,
        dtype: jnp.dtype,
        head_num: int,
        head_dim: int,
        layer_num: int,
        mesh: Mesh,
        dp_size: int = 1,
        start_layer: int | None = None,
        end_layer: int | None = None,
    ):
        super().__init__(size, page_size, dtype, layer_num, mesh, start_layer, end_layer)
        self.head_num = head_num
        self.head_dim = head_dim
        self.dp_size = dp_size
        self.kv_partition_axis = "tensor"
        self.attention_data_partition_axis = "data"

        self._create_buffers()
        self._calculate_memory_usage()

    def _create_buffers(self):
        """Create sharded fused KV cache buffers with proper distributed allocation"""
        self.kv_sharding = NamedSharding(
            self.mesh,
            P(self.attention_data_partition_axis, None, self.kv_partition_axis, None, None),
        )

        logger.info("Creating fused KV buffers for %s layers", self.layer_num)
        start_time = time.time()

        assert (
            self.size % self.dp_size == 0 and self.size % self.page_size == 0
        ), "Cache size must be divisible by dp_size and size must be divisible by page size"

        # Hack: this shape is more friendly to rpav3
        packing = get_dtype_packing(self.dtype)
        fused_buffer_shape = (
            (self.size + self.page_size * self.dp_size) // self.page_size,
            self.page_size,
            self.head_num * 2 // packing,  # [K0,V0,K1,V1,...]
            packing,
            self.head_dim,
        )
        total_memory_per_layer = (
            fused_buffer_shape[0]
            * fused_buffer_shape[1]
            * fused_buffer_shape[2]
            * jnp.dtype(self.dtype).itemsize
        )
        logger.info(
            "Total fused KV cache memory per layer: %.2f GB, dtype: %s",
            total_memory_per_layer / GB,
            self.dtype,
        )
        with self.mesh:
            self.kv_buffer = []
            for _ in range(self.layer_num):
                kv_buf = jax.jit(  # expect: JIT301
                    lambda: jnp.zeros(
                        shape=fused_buffer_shape,
                        dtype=self.dtype,
                    ),
                    out_shardings=self.kv_sharding,
                )()

                self.kv_buffer.append(kv_buf)

        end_time = time.time()
        logger.info(
            "Total time to create %s buffers: %.2f seconds",
            self.layer_num,
            end_time - start_time,
        )

    def _calculate_memory_usage(self):
        pass  # stand-in


if __name__ == "__main__":
    traces = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: traces.append(event)
        if event == "/jax/core/compile/jaxpr_trace_duration" else None
    )
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("data", "tensor"))
    pool = MHATokenToKVPool(size=64, page_size=16, dtype=jnp.bfloat16, head_num=2,
                            head_dim=8, layer_num=4, mesh=mesh)
    first = len(traces)
    pool2 = MHATokenToKVPool(size=64, page_size=16, dtype=jnp.bfloat16, head_num=2,
                             head_dim=8, layer_num=4, mesh=mesh)
    second = len(traces) - first
    # observed: line 118 traces a fresh lambda for every layer of every pool
    assert first >= 4 and second >= 4, (first, second)
    assert len(pool.kv_buffer) == 4 and pool.kv_buffer[0].shape == (5, 16, 2, 2, 8)
