# source: https://github.com/jax-ml/jax/issues/23475 (the reporter's example; `import jax`
#   added)
# observed on jax 0.10.2 CPU: runs clean and prints "5.00": jax.debug.print applies the
#   format spec `{:.2f}` to the runtime value, not to the tracer. (In the report, on jax
#   0.4.31, the jitted call raised "unsupported format string passed to
#   DynamicJaxprTracer.__format__".)
# gap: exemption-vs-JAX
import jax

def kernel(a):
  jax.debug.print("{:.2f}", a)
compiled = jax.jit(kernel)
compiled(5)


if __name__ == "__main__":
    compiled(2.5)
    jax.effects_barrier()
