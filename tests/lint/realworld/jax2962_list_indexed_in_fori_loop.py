# source: https://github.com/jax-ml/jax/issues/2962
# observed on jax 0.10.2 CPU: the first `trace` (a Python loop under jit) runs; the
#   fori_loop version raises TracerIntegerConversionError at `args[0][i]`: a Python list
#   indexed by the traced loop index. The driver loop draws every tensor from one key:
#   the first draws of each tensor are the same numbers. `np` is jax.numpy and `onp`
#   NumPy in the report; the report's second driver loop is cut off in the thread, so
#   __main__ calls the fori_loop version once on the last list.
# gap: types
import numpy as onp
import jax.numpy as np
from jax import jit, lax, random

@jit
def trace(list_of_tensors):
    L = len(list_of_tensors)
    edge = np.ones((1))

    for i in range(L):
        edge = np.einsum('i,ij->j', edge, list_of_tensors[i])

    return edge

for i in range(5):
    key = random.PRNGKey(onp.random.randint(1,1000000))
    list_of_tensors = [random.normal(key, (1,2)), random.normal(key, (2,4)), random.normal(key, (4,8)), random.normal(key, (8,1))]  # expect: JIT502

    print(trace(list_of_tensors))

@jit
def trace(list_of_tensors):
    L = len(list_of_tensors)
    edge = np.ones((1))

    list_of_tensors, edge = lax.fori_loop(0, L, loop_body, (list_of_tensors, edge))

    return edge

def loop_body(i, args):
    L = len(args[0])
    edge = np.einsum('i,ij->j', args[1], args[0][i])  # expect: JIT401

    return (args[0], edge)


if __name__ == "__main__":
    import traceback

    # observed: line 25 draws the four tensors from one key: their first numbers agree
    assert (list_of_tensors[0].ravel() == list_of_tensors[1].ravel()[:2]).all()
    try:
        trace(list_of_tensors)
    except TypeError as e:
        here = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
    else:
        raise AssertionError("the fori_loop version ran")
    # observed: line 40 raises: the list is indexed by the traced loop index
    assert here[-1] == 40, here
