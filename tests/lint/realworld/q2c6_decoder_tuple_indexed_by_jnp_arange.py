# source: https://github.com/EiffL/Quarks2CosmosDataChallenge/blob/f76a170ff8093742578d7c5660cb2a56eae5b91e/quarks2cosmos/models/vae.py
#   (Decoder before "fix potential TracerIntegerConversionError in Decoder",
#   https://github.com/EiffL/Quarks2CosmosDataChallenge/pull/6)
# observed on jax 0.10.2 CPU with dm-haiku 0.0.17: under jax.jit, `jnp.arange(5)[::-1]`
#   is traced, so `self.channels_per_group[i]` indexes a Python tuple with a tracer and
#   raises TracerIntegerConversionError (blocks_per_group[i], strides[i],
#   use_projection[i] and the `%d` of the name would too).
#   Added: the __main__ block, and a stand-in for the repo's BlockGroup (a residual block
#   group from quarks2cosmos.models.convdae, never reached here); the imports of
#   quarks2cosmos and tensorflow_probability (not installed) are left out, so the `tfd`
#   of the unreached return statement is undefined.
# gap: omnistaging
import jax
import jax.numpy as jnp
import haiku as hk


class BlockGroup(hk.Module):
  def __init__(self, channels, num_blocks, stride, bn_config, bottleneck,
               use_projection, transpose, name=None):
    super().__init__(name=name)
    self.conv = hk.Conv2DTranspose(channels, kernel_shape=3, stride=stride)

  def __call__(self, inputs, is_training, test_local_stats):
    return self.conv(inputs)


class Decoder(hk.Module):
  def __init__(self,
               blocks_per_group=(2, 2, 2, 2, 2),
               bn_config=False,
               bottleneck=False,
               channels_per_group=(32, 64, 128, 128, 32),
               use_projection=(True, True, True, True, True),
               name=None):
    """Constructs a Residual UNet model based on a traditional ResNet.
    Args:
      blocks_per_group: A sequence of length 4 that indicates the number of
        blocks created in each group.
      bn_config: A dictionary of two elements, ``decay_rate`` and ``eps`` to be
        passed on to the :class:`~haiku.BatchNorm` layers. By default the
        ``decay_rate`` is ``0.9`` and ``eps`` is ``1e-5``.
      resnet_v2: Whether to use the v1 or v2 ResNet implementation. Defaults to
        ``False``.
      bottleneck: Whether the block should bottleneck or not. Defaults to
        ``True``.
      channels_per_group: A sequence of length 4 that indicates the number
        of channels used for each block in each group.
      use_projection: A sequence of length 4 that indicates whether each
        residual block should use projection.
      name: Name of the module.
    """
    super().__init__(name=name)

    bn_config = dict(bn_config or {})
    bn_config.setdefault("decay_rate", 0.9)
    bn_config.setdefault("eps", 1e-5)
    bn_config.setdefault("create_scale", True)
    bn_config.setdefault("create_offset", True)
    self.bn_config = bn_config
    self.channels_per_group = channels_per_group
    self.blocks_per_group = blocks_per_group
    self.use_projection = use_projection
    self.bottleneck = bottleneck
    
  def __call__(self, inputs, is_training=False, test_local_stats=False):
    
    # Expand and reshape inputs
    net = hk.Linear(3*3*32)(inputs)
    net = net.reshape([-1,3,3,32])
    
    strides = (1, 2, 2, 2, 2)
    for i in jnp.arange(5)[::-1]:
      net = BlockGroup(channels=self.channels_per_group[i],  # expect: JIT401
                     num_blocks=self.blocks_per_group[i],  # tolerate: JIT401
                     stride=strides[i],  # tolerate: JIT401
                     bn_config=self.bn_config,
                     bottleneck=self.bottleneck,
                     use_projection=self.use_projection[i],  # tolerate: JIT401
                     transpose=True,
                     name="up_block_group_%d" % (i))(net, is_training, test_local_stats)  # tolerate: JIT401
    
    net = hk.Conv2DTranspose(output_channels=1,
                                kernel_shape=5,
                                stride=2,
                                padding="SAME",
                                name="final_conv")(net)
    
    # Adding padding to recover 101x101 shape
    net = net[...,0]
    net = jnp.pad(net,[[0,0],[3,2],[3,2]])
    return tfd.Independent(tfd.MultivariateNormalDiag(net, scale_identity_multiplier=1.),
                           reinterpreted_batch_ndims=1)

if __name__ == "__main__":
  forward = hk.transform_with_state(
      lambda x: Decoder()(x, is_training=True))
  x = jnp.ones((1, 16))
  jax.jit(forward.init)(jax.random.PRNGKey(0), x)
