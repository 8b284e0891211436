# source: https://github.com/jax-ml/jax/issues/1567 (the reporter's World class, "This prints
#   Traced<ShapedArray(float32[2])...>")
# observed on jax 0.10.2 CPU: step is jitted with `self` static; its body rebinds self.v and
#   self.p to tracers while it is traced, once, on the first call. The other 999 calls hit the
#   cache (same object, same hash) and run nothing, so world.p is left holding a leaked tracer
#   and the simulation never advances. Added: the `__main__` block that checks the leak; the
#   loop and print of the report are kept (the print shows the tracer).
# gap: stale-state-attributes
import jax
import jax.numpy as np
from jax import jit
from functools import partial


class World:
    def __init__(self, p, v):
        self.p = p
        self.v = v

    @partial(jit, static_argnums=(0,))
    def step(self, dt):
        a = - 9.8
        self.v += a * dt  # expect: JIT202
        self.p += self.v *dt  # expect: JIT202


world = World(np.array([0, 0]), np.array([1, 1]))

for i in range(1000):
    world.step(0.01)
print(world.p)


if __name__ == "__main__":
    # observed: line 23 and line 24 store tracers on the static object during the one trace:
    # both attributes are leaked tracers after the loop
    assert isinstance(world.v, jax.core.Tracer)
    assert isinstance(world.p, jax.core.Tracer)
