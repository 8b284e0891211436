# source: https://github.com/jax-ml/jax/issues/16906
# observed on jax 0.10.2 CPU: fn(x, y) donates y; the later print(y) raises
#   RuntimeError: Array has been deleted (CPU honours donation on this version).
#   `jax.tree_map` (removed) is spelled `jax.tree.map`; `import jax` added; the AOT
#   inspection lines of the report (fn.lower/compile/args_info) are left out.
# gap: other
import jax

def fn(x, y):
  return x, y

fn = jax.jit(fn, donate_argnums=1)

x = {'A': 1.0, 'B': 2.0}
y = 3.0
x = jax.tree.map(lambda x: jax.device_put(x, jax.local_devices()[0]), x)
y = jax.tree.map(lambda x: jax.device_put(x, jax.local_devices()[0]), y)

fn(x, y)

print(x) # x wasn't donated at all
print(y) # y was donated (as expected) -> RuntimeError: Array has been deleted.  # expect: JIT504
