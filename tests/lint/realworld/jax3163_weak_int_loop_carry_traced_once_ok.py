# source: https://github.com/jax-ml/jax/issues/3163
# observed on jax 0.10.2 CPU: runs clean and my_fn is traced once over the ten calls: the
#   Python int 0 enters as a weakly typed int32, and x + y of two weak ints returns a weakly
#   typed array, so the second call's x matches the first call's signature (in 2020 the
#   result lost weak_type and the second call retraced). The global counter and the print
#   are the reporter's deliberate trace-time markers, so they are tolerated; the final
#   assert is the reporter's, moved into the __main__ block.
# gap: other
import jax
import jax.numpy as np

my_fn_calls = 0

@jax.jit
def my_fn(x, y):
    # side effect to detect multiple tracing
    global my_fn_calls
    my_fn_calls += 1  # tolerate: JIT202
    print("my_fn")  # tolerate: JIT203

    return x + y

x = 0

for i in range(10):
    x = my_fn(x, i)

if __name__ == "__main__":
    assert(my_fn_calls == 1) # fails because my_fn_calls == 2
    assert int(x) == 45
