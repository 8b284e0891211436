# source: https://github.com/deep-learning-for-biology/dlfb/blob/34809479cab19295902dcd70159dbb07f6ad403f/src/dlfb/cancer/train/handlers/augmentors.py
# observed on jax 0.10.2 CPU: every random op after the first reuses `rng`, so all augmentation parameters are one draw (see per-line comments)
# gap: flow-sensitive
# observed: line 66 flip_up_down decision equals the flip_left_right decision for every key (never a single flip), also under jit+vmap
# observed: line 74 flip_up_down decision equals the flip_left_right decision for every key
# observed: line 75 brightness delta is 0.2*u-0.1 for the same uniform u that decided the flips (flip <=> delta < 0) for every key
# observed: line 76 contrast factor is 0.9+0.1*u for the same u for every key
# observed: line 77 hue delta is 0.1*u-0.05 for the same u for every key
# observed: line 81 rotation angle is 0.349066*u-0.174533 for the same u for every key
# (added: dm_pix is not installed here, so `pix` below is a small stand-in with dm_pix's sampling
#  logic: bernoulli(key, p) for the flips, uniform(key, (), lo, hi) for the others; it records each
#  draw when run eagerly. The augmentor functions are unchanged; __main__ added.)
import jax
import jax.numpy as jnp


class pix:  # stand-in for `import dm_pix as pix`
  log = []

  @staticmethod
  def _rec(name, v):
    if not isinstance(v, jax.core.Tracer):
      pix.log.append((name, float(v)))

  @staticmethod
  def random_flip_left_right(key, image, probability=0.5):
    s = jax.random.bernoulli(key, probability)
    pix._rec("lr", s)
    return jax.lax.cond(s, lambda x: jnp.flip(x, axis=-2), lambda x: x, image)

  @staticmethod
  def random_flip_up_down(key, image, probability=0.5):
    s = jax.random.bernoulli(key, probability)
    pix._rec("ud", s)
    return jax.lax.cond(s, lambda x: jnp.flip(x, axis=-3), lambda x: x, image)

  @staticmethod
  def random_brightness(key, image, max_delta):
    d = jax.random.uniform(key, (), minval=-max_delta, maxval=max_delta)
    pix._rec("brightness", d)
    return image + d

  @staticmethod
  def random_contrast(key, image, lower, upper):
    f = jax.random.uniform(key, (), minval=lower, maxval=upper)
    pix._rec("contrast", f)
    m = jnp.mean(image, axis=(-3, -2), keepdims=True)
    return (image - m) * f + m

  @staticmethod
  def random_hue(key, image, max_delta):
    d = jax.random.uniform(key, (), minval=-max_delta, maxval=max_delta)
    pix._rec("hue", d)
    return image  # colour maths elided

  @staticmethod
  def rotate(image, angle):
    pix._rec("angle", angle)
    return image  # resampling elided


@jax.jit
def flipping_augmentor(image: jax.Array, rng: jax.Array) -> jax.Array:
  """Applies random horizontal and vertical flips."""
  image = pix.random_flip_left_right(rng, image)
  image = pix.random_flip_up_down(rng, image)  # expect: JIT502
  return image


@jax.jit
def rich_augmentor(image: jax.Array, rng: jax.Array) -> jax.Array:
  """Applies random flips, brightness, contrast, hue changes, and rotation."""
  image = pix.random_flip_left_right(rng, image)
  image = pix.random_flip_up_down(rng, image)  # expect: JIT502
  image = pix.random_brightness(rng, image, max_delta=0.1)  # expect: JIT502
  image = pix.random_contrast(rng, image, lower=0.9, upper=1)  # expect: JIT502
  image = pix.random_hue(rng, image, max_delta=0.05)  # expect: JIT502
  # Angles are provided in radians, i.e. +/- 10 degrees.
  image = pix.rotate(
    image,
    angle=jax.random.uniform(rng, shape=(), minval=-0.174533, maxval=0.174533),  # expect: JIT502
  )
  return image


if __name__ == "__main__":
  import numpy as np

  # As in BatchHandler.get_batches: vmap over a batch with one split key per image.
  n = 64
  img = jnp.arange(4 * 4 * 3, dtype=jnp.float32).reshape(4, 4, 3)
  images = jnp.broadcast_to(img, (n, 4, 4, 3))
  keys = jax.random.split(jax.random.PRNGKey(0), n)
  out = jax.vmap(lambda image, r: flipping_augmentor(image, rng=r))(images, keys)
  ident = np.all(np.asarray(out) == np.asarray(img), axis=(1, 2, 3))
  both = np.all(np.asarray(out) == np.asarray(img[::-1, ::-1]), axis=(1, 2, 3))
  print("jit+vmap flipping_augmentor: unchanged", ident.sum(), "both flips", both.sum(), "of", n)
  assert (ident | both).all() and ident.any() and both.any()

  # Eager run of the same bodies to read every draw.
  for fn in (flipping_augmentor, rich_augmentor):
    for k in keys:
      pix.log.clear()
      fn.__wrapped__(img, k)
      d = dict(pix.log)
      u = float(jax.random.uniform(k, ()))
      assert d["ud"] == d["lr"] == float(u < 0.5), d
      if fn is rich_augmentor:
        assert abs(d["brightness"] - (0.2 * u - 0.1)) < 1e-5
        assert abs(d["contrast"] - (0.9 + 0.1 * u)) < 1e-5
        assert abs(d["hue"] - (0.1 * u - 0.05)) < 1e-5
        assert abs(d["angle"] - (0.349066 * u - 0.174533)) < 1e-5
  print("all draws of rich_augmentor are one uniform u for", n, "keys")
  print("ok")
