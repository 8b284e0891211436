# source: https://github.com/patrick-kidger/equinox/blob/327967b8596ba5a00a2b6ee4804bb78a2bd50fe5/equinox/nn/conv.py
#   (eqx.nn.Conv before commit 9d95ef6 "remove .item()")
# observed on jax 0.10.2 CPU (equinox 0.13.8 for Module): building the layer under
#   eqx.filter_jit raises ConcretizationTypeError at `.item()` in __init__: under jit even
#   `jnp.prod(jnp.array(self.kernel_size))` of static sizes is a tracer. Current spellings:
#   `from ..module import Module, static_field` -> equinox's `Module, field`,
#   `static_field()` -> `field(static=True)`, `..custom_types.Array` -> `jax.Array`.
#   The __main__ block is added.
# gap: omnistaging
import collections
from itertools import repeat
from typing import Optional, Sequence, Union

import jax.numpy as jnp
import jax.random as jrandom
from jax.lax import conv_general_dilated

from jax import Array
from equinox import Module, field


def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            if len(x) == n:
                return tuple(x)
            else:
                raise ValueError(f"Length of {x} (length = {len(x)}) is not equal to {n}")
        return tuple(repeat(x, n))

    return parse


class Conv(Module):
    num_spatial_dims: int = field(static=True)
    weight: Array
    bias: Optional[Array]
    in_channels: int = field(static=True)
    out_channels: int = field(static=True)
    kernel_size: Union[int, Sequence[int]] = field(static=True)
    stride: Union[int, Sequence[int]] = field(static=True)
    padding: Union[int, Sequence[int]] = field(static=True)
    dilation: Union[int, Sequence[int]] = field(static=True)
    use_bias: bool = field(static=True)

    def __init__(
        self,
        num_spatial_dims,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        use_bias=True,
        *,
        key,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.num_spatial_dims = num_spatial_dims
        parse = _ntuple(self.num_spatial_dims)
        wkey, bkey = jrandom.split(key, 2)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = parse(kernel_size)
        self.use_bias = use_bias
        lim = 1 / jnp.sqrt(self.in_channels * jnp.prod(jnp.array(self.kernel_size))).item()  # expect: JIT401

        self.weight = jrandom.uniform(
            wkey,
            (
                self.out_channels,
                self.in_channels,
            )
            + self.kernel_size,
            minval=-lim,
            maxval=lim,
        )
        if self.use_bias:
            self.bias = jrandom.uniform(
                bkey,
                (self.out_channels,) + (1,) * self.num_spatial_dims,
                minval=-lim,
                maxval=lim,
            )
        else:
            self.bias = None

        self.stride = parse(stride)
        if type(padding) == tuple and len(padding) == self.num_spatial_dims:
            self.padding = tuple(
                parse(padding[i]) for i in range(self.num_spatial_dims)
            )
        elif type(padding) == int:
            self.padding = tuple(
                (padding, padding) for _ in range(self.num_spatial_dims)
            )
        else:
            raise ValueError(
                f"Padding must either be int or tuple of length {self.num_spatial_dims}"
            )
        self.dilation = parse(dilation)

    def __call__(self, x, *, key=None):
        unbatched_rank = self.num_spatial_dims + 1
        if x.ndim != unbatched_rank:
            raise ValueError(
                f"Input to Conv needs to have rank {unbatched_rank},",
                f" but input has shape {x.shape}.",
            )
        x = jnp.expand_dims(x, axis=0)
        x = conv_general_dilated(
            lhs=x,
            rhs=self.weight,
            window_strides=self.stride,
            padding=self.padding,
            rhs_dilation=self.dilation,
        )
        if self.bias is not None:
            x += jnp.broadcast_to(self.bias, x.shape)
        x = jnp.squeeze(x, axis=0)
        return x



if __name__ == "__main__":
    import equinox as eqx
    import jax

    make = eqx.filter_jit(lambda key: Conv(2, 3, 4, 3, key=key))
    conv = make(jax.random.PRNGKey(0))
    print(conv(jnp.ones((3, 8, 8))).shape)
