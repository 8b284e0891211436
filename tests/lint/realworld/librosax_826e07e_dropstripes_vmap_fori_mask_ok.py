# source: https://github.com/DBraun/librosax/blob/826e07e0dd4f333878c708fcd8037e80b8871850/src/librosax/layers/core.py
#   (librosax commit "rename LogMelFilterBank, fix and test DropStripes": the SpecAugment
#   DropStripes layer after the fix, with a vmap over per-example keys, a fori_loop over the
#   stripes and a stripe mask from comparisons with the traced begin and width, instead of
#   slices with traced bounds)
# observed on jax 0.10.2 CPU: DropStripes(axis=2) and DropStripes(axis=-1) (turned into 3 in
#   __post_init__) run under jax.jit of their apply with a dropout key, return an array of the input's shape, and
#   keys 0 and 1 give different outputs unless nothing was dropped.
# gap: exemption-vs-JAX
# added: the imports (the file's librosa/einops/stft imports, unused by DropStripes, dropped),
#   only the DropStripes class of the file, and the __main__ block, which jits the layer's
#   apply as a training step would.
from typing import Optional

from flax import linen as nn
import jax
from jax import numpy as jnp, random
class DropStripes(nn.Module):
    """A module that randomly drops stripes (time or frequency bands) from a spectrogram.

    This module is used for data augmentation in audio tasks by randomly masking
    time frames or frequency bands in the spectrogram.

    Attributes:
        axis: Axis along which to drop stripes. 2 for time, 3 for frequency.
        drop_width: Maximum width of stripes to drop.
        stripes_num: Number of stripes to drop.
        deterministic: If ``True``, no dropping is performed. Default is ``None``.
    """

    axis: int
    drop_width: int
    stripes_num: int
    deterministic: Optional[bool] = None

    def __post_init__(self):
        if self.axis < 0:
            self.axis += 4
        assert self.axis in [2, 3]  # axis 2: time; axis 3: frequency
        super().__post_init__()

    @nn.compact
    def __call__(self, inputs: jnp.ndarray, deterministic=None) -> jnp.ndarray:
        """Apply random stripe dropping to the input spectrogram.

        Args:
            inputs: Input tensor of shape ``(batch_size, channels, time_steps, freq_bins)``.
            deterministic: If ``True``, no dropping is performed. Overrides the module attribute
                if provided. Default is ``None``.

        Returns:
            jnp.ndarray: Transformed tensor with same shape as input.

        Raises:
            AssertionError: If the input does not have 4 dimensions.
        """
        assert inputs.ndim == 4

        deterministic = nn.merge_param(
            "deterministic", self.deterministic, deterministic
        )

        if deterministic:
            return inputs

        # Get shape information
        batch_size = inputs.shape[0]
        total_width = inputs.shape[self.axis]

        key = self.make_rng("dropout")

        # Create a separate key for each element in the batch
        batch_keys = random.split(key, batch_size)

        # Vectorize the _transform_slice function over the batch dimension
        transformed = jax.vmap(lambda x, k: self._transform_slice(x, total_width, k))(
            inputs, batch_keys
        )

        return transformed

    def _transform_slice(self, e: jnp.ndarray, total_width: int, key: jax.Array):
        """Transform a single slice by dropping random stripes.

        Args:
            e: Single slice tensor of shape ``(channels, time_steps, freq_bins)``.
            total_width: Total width of the dimension along which to drop stripes.
            key: JAX PRNG key.

        Returns:
            jnp.ndarray: Transformed slice with random stripes set to zero.
        """
        # Create a mask of ones with the same shape as e
        mask = jnp.ones_like(e)

        # Define the body function for fori_loop
        def body_fn(i, carry):
            mask, key = carry
            key, distance_key, bgn_key = random.split(key, 3)

            # Generate random width and beginning position
            distance = random.randint(
                distance_key, shape=(), minval=0, maxval=self.drop_width
            )
            bgn = random.randint(
                bgn_key, shape=(), minval=0, maxval=total_width - distance
            )

            # Create and apply the stripe mask based on axis
            if self.axis == 2:
                # Create a mask for the time dimension
                time_indices = jnp.arange(e.shape[1])
                stripe_mask = (time_indices >= bgn) & (time_indices < bgn + distance)
                stripe_mask = jnp.reshape(stripe_mask, (1, -1, 1))
                mask = mask * (1.0 - stripe_mask.astype(mask.dtype))
            elif self.axis == 3:
                # Create a mask for the frequency dimension
                freq_indices = jnp.arange(e.shape[2])
                stripe_mask = (freq_indices >= bgn) & (freq_indices < bgn + distance)
                stripe_mask = jnp.reshape(stripe_mask, (1, 1, -1))
                mask = mask * (1.0 - stripe_mask.astype(mask.dtype))

            return (mask, key)

        # Use jax.lax.fori_loop to iterate through the stripes
        (mask, _) = jax.lax.fori_loop(0, self.stripes_num, body_fn, (mask, key))

        # Apply the mask to the input
        return e * mask


if __name__ == "__main__":
    B, C, H, W = 2, 3, 9, 16
    x = jnp.ones((B, C, H, W))
    for axis in (2, -1):
        drop_stripes = DropStripes(axis=axis, drop_width=2, stripes_num=2, deterministic=False)

        @jax.jit
        def augment(x, rng):
            return drop_stripes.apply({}, x, rngs={"dropout": rng})

        y0 = augment(x, random.key(0))
        y1 = augment(x, random.key(1))
        assert y0.shape == x.shape
        dropped = (y0 == 0).sum()
        assert dropped <= B * 2 * C * (H if axis == -1 else W)
        assert not bool(jnp.array_equal(y0, y1)) or dropped == 0
