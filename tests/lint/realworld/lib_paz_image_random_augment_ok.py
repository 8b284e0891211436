# source: https://github.com/oarriaga/paz/blob/f0258173e793d657e9d1e8515317a26aa2faf911/paz/backend/image.py
# observed on jax 0.10.2 CPU: the key-based colour and flip augmentations run under
#   jax.jit(jax.vmap(...)) with one split key per image, as examples/pyramid_detector/train.py
#   at the same commit does (to_images); each image gets its own flip decision (lax.cond on a
#   traced bernoulli draw) and colour factors, and the results equal the eager ones.
# gap: exemption-vs-JAX
# added: imports (types); a stand-in `paz` namespace with `cast` (paz/backend/standard.py);
#   the functions of paz/backend/image.py from flip_left_right to random_flip_left_right that
#   need neither cv2 nor paz.SO3/SE3 (load/show/resize/rotation are left out); the `augment`
#   function of examples/pyramid_detector/train.py at the same commit without its rotation
#   line; the __main__ block.
import types

import jax
import jax.numpy as jp

paz = types.SimpleNamespace(cast=lambda x, dtype: x.astype(dtype))


def flip_left_right(image):
    """Flips an image left and right.

    # Arguments
        image: Array of shape `(H, W, C)`.

    # Returns
        Flipped image array.
    """
    return image[:, ::-1]


def BGR_to_RGB(image_BGR):
    return image_BGR[..., ::-1]


def normalize(image):
    return image / 255.0


def denormalize(image):
    return paz.cast(image * 255.0, jp.uint8)

def normalize_min_max(x, axis=-1):
    x_min = x.min(axis=axis, keepdims=True)
    x_max = x.max(axis=axis, keepdims=True)
    return (x - x_min) / (x_max - x_min)


def random_brightness(key, image, delta=32):
    """Applies random brightness to an RGB image.

    # Arguments
        image: Numpy array representing an image RGB format.
        delta: Int.
    """
    image = paz.cast(image, jp.float32)
    random_brightness = jax.random.uniform(key, (), jp.float32, -delta, delta)
    image = image + random_brightness
    image = jp.clip(image, 0, 255)
    image = paz.cast(image, jp.uint8)
    return image


def random_contrast(key, image, lower=0.5, upper=1.5):
    """Applies random contrast to an RGB image.

    # Arguments
        image: Numpy array representing an image RGB format.
        lower: Float.
        upper: Float.
    """
    alpha = jax.random.uniform(key, (1,), jp.float32, lower, upper)
    image = paz.cast(image, jp.float32)
    image = image * alpha
    image = jp.clip(image, 0, 255)
    image = paz.cast(image, jp.uint8)
    return image


def split_channels(image, num_channels=3):
    channels = jp.split(image, num_channels, axis=-1)
    return tuple(jp.squeeze(channel, axis=-1) for channel in channels)


def merge_channels(channel_0, channel_1, channel_2):
    channel_0 = jp.expand_dims(channel_0, axis=-1)
    channel_1 = jp.expand_dims(channel_1, axis=-1)
    channel_2 = jp.expand_dims(channel_2, axis=-1)
    return jp.concatenate([channel_0, channel_1, channel_2], axis=-1)


def rgb_to_hsv(image):
    """Convert image from RGB to HSV."""
    r, g, b = split_channels(image)
    channels_max = jp.max(image, axis=-1)  # value = channels_max
    channels_min = jp.min(image, axis=-1)
    delta = channels_max - channels_min
    safe_value = jp.where(channels_max > 0, channels_max, 1.0)
    safe_delta = jp.where(delta > 0, delta, 1.0)
    saturation = jp.where(channels_max > 0, delta / safe_value, 0.0)
    norm = 1.0 / (6.0 * safe_delta)
    hue = jp.where(
        channels_max == g,
        norm * (b - r) + 2.0 / 6.0,
        norm * (r - g) + 4.0 / 6.0,
    )
    hue = jp.where(channels_max == r, norm * (g - b), hue)
    hue = jp.where(delta > 0, hue, 0.0) + (hue < 0.0)
    return merge_channels(hue, saturation, channels_max)


def hsv_to_rgb(image):
    """Converts hue, saturation, value planes to r, g, b color planes."""
    hue, saturation, value = split_channels(image)
    dh = (hue % 1.0) * 6.0  # Wrap when hue >= 360°.
    dr = jp.clip(jp.abs(dh - 3.0) - 1.0, 0.0, 1.0)
    dg = jp.clip(2.0 - jp.abs(dh - 2.0), 0.0, 1.0)
    db = jp.clip(2.0 - jp.abs(dh - 4.0), 0.0, 1.0)
    one_minus_saturation = 1.0 - saturation
    r = value * (one_minus_saturation + saturation * dr)
    g = value * (one_minus_saturation + saturation * dg)
    b = value * (one_minus_saturation + saturation * db)
    return merge_channels(r, g, b)


def random_saturation(key, image, lower=0.3, upper=1.5):
    """Applies random saturation to an RGB image."""
    image = normalize(image)
    image = rgb_to_hsv(image)
    h, s, v = split_channels(image)
    random_scale = jax.random.uniform(key, (), jp.float32, lower, upper)
    s = s * random_scale
    s = jp.clip(s, 0.0, 1.0)
    image = merge_channels(h, s, v)
    image = hsv_to_rgb(image)
    image = denormalize(image)
    return paz.cast(image, jp.uint8)


def random_hue(key, image, max_delta=0.1):
    """Applies random hue adjustment to an RGB image.

    Returns:
        Image array with adjusted hue, dtype uint8.
    """
    # max_delta must be in the interval [0, 0.5]
    image = normalize(image)
    image = rgb_to_hsv(image)
    h, s, v = split_channels(image)
    delta = jax.random.uniform(key, (), minval=-max_delta, maxval=max_delta)
    h = (h + delta) % 1.0
    image = merge_channels(h, s, v)
    image = hsv_to_rgb(image)
    image = denormalize(image)
    image = jp.clip(image, 0, 255)
    return image.astype(jp.uint8)


def random_color_transform(key, image):
    key_1, key_2, key_3, key_4 = jax.random.split(key, 4)
    image = random_saturation(key_1, image)
    image = random_brightness(key_2, image)
    image = random_contrast(key_3, image)
    image = random_hue(key_4, image)
    return image

def random_flip_left_right(key, image):
    do_flip = jax.random.bernoulli(key)
    return jax.lax.cond(do_flip, flip_left_right, lambda x: x, image)


# examples/pyramid_detector/train.py at the same commit (rotation left out)
def augment(key, image):
    key_0, key_1, key_2, key_3, key_4, key_5 = jax.random.split(key, 6)
    image = random_flip_left_right(key_0, image)
    image = random_saturation(key_1, image)
    image = random_brightness(key_2, image)
    image = random_contrast(key_3, image)
    image = random_hue(key_4, image)
    return image


def to_images(key, images):
    images = jax.vmap(augment)(jax.random.split(key, len(images)), images)
    return images


if __name__ == "__main__":
    key = jax.random.PRNGKey(777)
    images = (jax.random.uniform(jax.random.PRNGKey(0), (8, 16, 12, 3)) * 255).astype(jp.uint8)
    jitted = jax.jit(to_images)
    out = jitted(key, images)
    assert out.shape == images.shape and out.dtype == jp.uint8
    eager = to_images(key, images)
    assert int(jp.abs(out.astype(jp.int32) - eager.astype(jp.int32)).max()) <= 1
    flips = jax.jit(jax.vmap(random_flip_left_right))(
        jax.random.split(key, 8), images  # tolerate: JIT502
    )
    flipped = [bool((flips[i] == images[i, :, ::-1]).all()) for i in range(8)]
    assert len(set(flipped)) == 2, flipped  # some images flipped, some not
    colour = jax.jit(jax.vmap(random_color_transform))(jax.random.split(key, 8), images)  # tolerate: JIT502
    assert colour.shape == images.shape
    print(flipped)
