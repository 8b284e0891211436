# source: https://stackoverflow.com/questions/78918890 (the question's second snippet, as
#   quoted at https://coderapp.vercel.app/answer/78918890; the __main__ block repeats its
#   calls to observe the outputs the question reports)
# observed on jax 0.10.2 CPU: jit(c.calc) closes over the bound instance, so `self.mul` is
#   read once, at trace time: after `c.mul = False` the jitted call still returns 6.
# gap: stale-state-attributes
import jax.numpy as jnp
from jax import jit

class CustomClass:
  def __init__(self, x: jnp.ndarray, mul: bool):
    self.x = x
    self.mul = mul

  # No decorator here !
  def calc(self, y):
    if self.mul:  # expect: JIT201
      return self.x * y
    return y


c = CustomClass(2, True)
jitted_calc = jit(c.calc)
print(jitted_calc(3))

c = CustomClass(2, True)
jitted_calc = jit(c.calc)
print(jitted_calc(3))
c.mul = False 
print(jitted_calc(3))

if __name__ == "__main__":
  c = CustomClass(2, True)
  jitted_calc = jit(c.calc)
  first = int(jitted_calc(3))
  c.mul = False
  second = int(jitted_calc(3))
  # observed: line 17 reads self.mul once, while tracing: the second call ignores c.mul = False
  assert (first, second) == (6, 6), (first, second)
  assert c.calc(3) == 3
