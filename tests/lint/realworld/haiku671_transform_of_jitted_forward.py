# source: https://github.com/google-deepmind/dm-haiku/issues/671
# observed on jax 0.10.2 CPU (dm-haiku 0.0.17): `hk.transform(_forward_fn)` raises
#   ValueError ("A common error with Haiku is to pass an already jit (or pmap) decorated
#   function into hk.transform"): _forward_fn creates the model's parameters through
#   Haiku's state, outside anything jit sees, so its jit caches a trace that wrote tracers
#   there (the reporter's UnexpectedTracerError on a new batch size, with the haiku of the
#   time). Added: a stand-in for the reporter's `vgg.VGG_D` ("already defined" in the
#   report), an MLP; test() and the timing below it never run.
# gap: stale-state-attributes
import types

import jax
import haiku as hk
from timeit import timeit
import time

vgg = types.SimpleNamespace(VGG_D=lambda num_classes: hk.nets.MLP([num_classes]))


keys_seq = hk.PRNGSequence(0)
@jax.jit
def _forward_fn(x):
   # This model is already defined and has a correct format.
    model = vgg.VGG_D(num_classes=1000)
    return model(x)


def test():
    for i in range(1000):
       # The following fails due to batch size being 2
       # inp_x = jax.random.normal(key=rng_key, shape=(2, 3, 224, 224))
       # The following line works
        inp_x = jax.random.normal(key=rng_key, shape=(1, 3, 224, 224))  # tolerate: JIT502
        out = model.apply(params, x=inp_x)
    return None

model = hk.without_apply_rng(hk.transform(_forward_fn))  # expect: JIT202

dummy_x = jax.random.normal(key=next(keys_seq), shape=(1, 3, 224, 224))

params = model.init(rng=next(keys_seq), x=dummy_x)

seconds = timeit("test()", globals=globals(), number=10)
ms_per_pass = (seconds / (1e4)) * 1000
print(ms_per_pass)
