# source: https://github.com/danijar/dreamerv3/issues/11 (the RNG class linked there,
#   https://github.com/danijar/dreamerv3/blob/688e04fc0b7779d51bbc4fe93569f6c923e24239/dreamerv3/jaxutils.py#L31;
#   the reporter: "should that not be: self.buffer = self.buffer[amount:]", the author:
#   "Good catch! ... Fixed in the newest commit", 84ecf19 "Better parallel training and RNG
#   fix.", which replaces the class by a NumPy generator of seeds)
# observed on jax 0.10.2 CPU: next(amount) returns the first `amount` keys of its buffer and
#   then keeps exactly those keys as the buffer, so every later next(amount) hands out the
#   same keys again: JAXAgent._next_rngs(train_devices) with two devices gives the train
#   step the same per-device keys on every update, and the sampled noise repeats.
#   Kept verbatim: the RNG class. Added: the __main__ block, which calls
#   `jnp.stack(self.rng.next(len(devices)))` as JAXAgent._next_rngs does for two devices,
#   and a jitted stand-in for the train step that draws noise from each key.
# gap: other
import jax
import jax.numpy as jnp


class RNG:

  def __init__(self, seed=0, reserve=128):
    self.rng = jax.random.PRNGKey(seed)
    self.reserve = reserve
    self.buffer = []

  def next(self, amount=None):
    if len(self.buffer) < (amount or 1):
      keys = jax.random.split(self.rng, max((amount or 1) + 1, self.reserve))
      self.rng = keys[0]
      self.buffer = list(keys[1:])
    if amount:
      keys = self.buffer[:amount]
      self.buffer = self.buffer[:amount]  # expect: JIT502
      return keys
    else:
      return self.buffer.pop(0)


if __name__ == "__main__":
  rng = RNG(seed=0)
  devices = ["train:0", "train:1"]  # stand-in for two train devices

  @jax.jit
  def train_step(rngs):  # stand-in: each device draws its noise from its key
    return jax.vmap(lambda key: jax.random.normal(key, (3,)))(rngs)

  noise_1 = train_step(jnp.stack(rng.next(len(devices))))
  noise_2 = train_step(jnp.stack(rng.next(len(devices))))
  # observed: line 32 keeps the keys it returned: the second update draws the same noise
  assert jnp.array_equal(noise_1, noise_2)
