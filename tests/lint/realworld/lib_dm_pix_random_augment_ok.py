# source: https://github.com/google-deepmind/dm_pix/blob/0040861d63ed813e8e2c6b9fbdd20d5a074fdd65/dm_pix/_src/augment.py
#   (DeepMind's image-augmentation library: the random flips choose a branch with
#   lax.cond on a traced bernoulli draw, the random adjustments draw their factor from the
#   key, random_crop splits the key per dimension and slices with lax.dynamic_slice, and
#   center_crop / gaussian_blur / _channels_last branch on static shapes, axes and sizes)
# observed on jax 0.10.2 CPU: runs clean; a jitted augmentation pipeline (crop sizes static)
#   and a vmap of random_crop over a batch of keys give images of the requested shapes, and
#   different keys flip and crop differently.
# gap: exemption-vs-JAX
# added: the __main__ block. The functions are the module's adjust_brightness,
#   adjust_contrast, center_crop, flip_left_right, flip_up_down, gaussian_blur,
#   random_flip_left_right, random_flip_up_down, random_brightness, random_contrast,
#   random_crop, _channels_last, _depthwise_conv2d and _get_dimension_values, with their
#   multi-line docstrings and "DO NOT REMOVE - Logging usage" comments left out; the functions that need
#   the module's color_conversion and interpolation helpers are left out.
import functools
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import chex
import jax
import jax.numpy as jnp


def adjust_brightness(image: chex.Array, delta: chex.Numeric) -> chex.Array:
  return image + jnp.asarray(delta, image.dtype)


def adjust_contrast(
    image: chex.Array,
    factor: chex.Numeric,
    *,
    channel_axis: int = -1,
) -> chex.Array:
  if _channels_last(image, channel_axis):
    spatial_axes = (-3, -2)
  else:
    spatial_axes = (-2, -1)
  mean = jnp.mean(image, axis=spatial_axes, keepdims=True)
  return jnp.asarray(factor, image.dtype) * (image - mean) + mean


def center_crop(
    image: chex.Array,
    height: chex.Numeric,
    width: chex.Numeric,
    *,
    channel_axis: int = -1,
) -> chex.Array:
  chex.assert_rank(image, {3, 4})
  batch, current_height, current_width, channel = _get_dimension_values(
      image=image, channel_axis=channel_axis
  )
  center_h, center_w = current_height // 2, current_width // 2

  left = max(center_w - (width // 2), 0)  # pyrefly: ignore[unsupported-operation]
  right = min(left + width, current_width)
  top = max(center_h - (height // 2), 0)  # pyrefly: ignore[unsupported-operation]
  bottom = min(top + height, current_height)

  if _channels_last(image, channel_axis):
    start_indices = (top, left, 0)
    limit_indices = (bottom, right, channel)
  else:
    start_indices = (0, top, left)
    limit_indices = (channel, bottom, right)

  if batch is not None:  # In case batch of images is given.
    start_indices = (0, *start_indices)
    limit_indices = (batch, *limit_indices)

  return jax.lax.slice(
      image, start_indices=start_indices, limit_indices=limit_indices  # pyrefly: ignore[bad-argument-type]
  )


def flip_left_right(
    image: chex.Array,
    *,
    channel_axis: int = -1,
) -> chex.Array:
  if _channels_last(image, channel_axis):
    flip_axis = -2  # Image is ...HWC
  else:
    flip_axis = -1  # Image is ...CHW
  return jnp.flip(image, axis=flip_axis)


def flip_up_down(
    image: chex.Array,
    *,
    channel_axis: int = -1,
) -> chex.Array:
  if _channels_last(image, channel_axis):
    flip_axis = -3  # Image is ...HWC
  else:
    flip_axis = -2  # Image is ...CHW
  return jnp.flip(image, axis=flip_axis)


def gaussian_blur(
    image: chex.Array,
    sigma: chex.Numeric,
    kernel_size: float,
    *,
    padding: str = "SAME",
    channel_axis: int = -1,
) -> chex.Array:
  chex.assert_rank(image, {3, 4})
  data_format = "NHWC" if _channels_last(image, channel_axis) else "NCHW"
  dimension_numbers = (data_format, "HWIO", data_format)
  num_channels = image.shape[channel_axis]
  radius = int(kernel_size / 2)
  kernel_size_ = 2 * radius + 1
  x = jnp.arange(-radius, radius + 1).astype(jnp.float32)
  blur_filter = jnp.exp(-x**2 / (2. * sigma**2))
  blur_filter = blur_filter / jnp.sum(blur_filter)
  blur_v = jnp.reshape(blur_filter, [kernel_size_, 1, 1, 1])
  blur_h = jnp.reshape(blur_filter, [1, kernel_size_, 1, 1])
  blur_h = jnp.tile(blur_h, [1, 1, 1, num_channels])
  blur_v = jnp.tile(blur_v, [1, 1, 1, num_channels])

  expand_batch_dim = image.ndim == 3
  if expand_batch_dim:
    image = image[jnp.newaxis, ...]  # pyrefly: ignore[bad-index]
  blurred = _depthwise_conv2d(
      image,
      kernel=blur_h,
      strides=(1, 1),
      padding=padding,
      channel_axis=channel_axis,
      dimension_numbers=dimension_numbers)
  blurred = _depthwise_conv2d(
      blurred,
      kernel=blur_v,
      strides=(1, 1),
      padding=padding,
      channel_axis=channel_axis,
      dimension_numbers=dimension_numbers)
  if expand_batch_dim:
    blurred = jnp.squeeze(blurred, axis=0)
  return blurred


def random_flip_left_right(
    key: chex.PRNGKey,
    image: chex.Array,
    *,
    probability: chex.Numeric = 0.5,
) -> chex.Array:
  should_transform = jax.random.bernoulli(key=key, p=probability)
  return jax.lax.cond(should_transform, flip_left_right, lambda x: x, image)


def random_flip_up_down(
    key: chex.PRNGKey,
    image: chex.Array,
    *,
    probability: chex.Numeric = 0.5,
    channel_axis: int = -1,
) -> chex.Array:
  should_transform = jax.random.bernoulli(key=key, p=probability)
  return jax.lax.cond(
      should_transform,
      lambda x: flip_up_down(x, channel_axis=channel_axis),
      lambda x: x,
      image,
  )


def random_brightness(
    key: chex.PRNGKey,
    image: chex.Array,
    max_delta: chex.Numeric,
) -> chex.Array:
  """`adjust_brightness(...)` with random delta in `[-max_delta, max_delta)`."""
  delta = jax.random.uniform(key, (), minval=-max_delta, maxval=max_delta)  # pyrefly: ignore[unsupported-operation]
  return adjust_brightness(image, delta)


def random_contrast(
    key: chex.PRNGKey,
    image: chex.Array,
    lower: chex.Numeric,
    upper: chex.Numeric,
    *,
    channel_axis: int = -1,
) -> chex.Array:
  """`adjust_contrast(...)` with random factor in `[lower, upper)`."""
  factor = jax.random.uniform(key, (), minval=lower, maxval=upper)
  return adjust_contrast(image, factor, channel_axis=channel_axis)


def random_crop(
    key: chex.PRNGKey,
    image: chex.Array,
    crop_sizes: Sequence[int],
) -> chex.Array:
  image_shape = image.shape
  assert len(image_shape) == len(crop_sizes), (
      f"Number of image dims {len(image_shape)} and number of crop_sizes "
      f"{len(crop_sizes)} do not match.")
  assert image_shape >= crop_sizes, (  # pyrefly: ignore[unsupported-operation]
      f"Crop sizes {crop_sizes} should be a subset of image size {image_shape} "
      "in each dimension .")
  random_keys = jax.random.split(key, len(crop_sizes))

  slice_starts = [
      jax.random.randint(k, (), 0, img_size - crop_size + 1)
      for k, img_size, crop_size in zip(random_keys, image_shape, crop_sizes)
  ]
  out = jax.lax.dynamic_slice(image, slice_starts, crop_sizes)  # pyrefly: ignore[bad-argument-type]

  return out


def _channels_last(image: chex.Array, channel_axis: int):
  last = channel_axis == -1 or channel_axis == (image.ndim - 1)
  if not last:
    assert channel_axis == -3 or channel_axis == range(image.ndim)[-3]
  return last


def _depthwise_conv2d(
    inputs: chex.Array,
    kernel: chex.Array,
    *,
    strides: Tuple[int, int],
    padding: str,
    channel_axis: int,
    dimension_numbers: Tuple[str, str, str],
) -> chex.Array:
  return jax.lax.conv_general_dilated(
      inputs,  # pyrefly: ignore[bad-argument-type]
      kernel,  # pyrefly: ignore[bad-argument-type]
      strides,
      padding,
      feature_group_count=inputs.shape[channel_axis],
      dimension_numbers=dimension_numbers)


def _get_dimension_values(
    image: chex.Array,
    channel_axis: int,
) -> Tuple[Optional[int], int, int, int]:
  chex.assert_rank(image, {3, 4})
  if image.ndim == 4:
    if _channels_last(image=image, channel_axis=channel_axis):
      batch, height, width, channel = image.shape
    else:
      batch, channel, height, width = image.shape
  else:
    if _channels_last(image=image, channel_axis=channel_axis):
      batch, (height, width, channel) = None, image.shape
    else:
      batch, (channel, height, width) = None, image.shape
  return batch, height, width, channel


if __name__ == "__main__":

  @functools.partial(jax.jit, static_argnames=("crop_sizes",))
  def augment(key, image, crop_sizes):
    k_lr, k_ud, k_b, k_c, k_crop = jax.random.split(key, 5)
    image = random_flip_left_right(k_lr, image)
    image = random_flip_up_down(k_ud, image)
    image = random_brightness(k_b, image, 0.2)
    image = random_contrast(k_c, image, 0.8, 1.2)
    image = gaussian_blur(image, sigma=1.0, kernel_size=5.0)
    image = center_crop(image, 14, 14)
    return random_crop(k_crop, image, crop_sizes)

  image = jax.random.uniform(jax.random.PRNGKey(0), (16, 16, 3))
  keys = jax.random.split(jax.random.PRNGKey(1), 8)
  outs = [augment(k, image, (8, 8, 3)) for k in keys]
  assert all(o.shape == (8, 8, 3) for o in outs)
  assert not all(bool(jnp.allclose(outs[0], o)) for o in outs[1:])

  flips = jax.jit(jax.vmap(random_flip_left_right, in_axes=(0, None)))(keys, image)
  assert flips.shape == (8, 16, 16, 3)
  crops = jax.vmap(lambda k: random_crop(k, image, (4, 4, 3)))(keys)
  assert crops.shape == (8, 4, 4, 3)
