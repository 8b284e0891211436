# source: https://github.com/JoeyTeng/jaxrenderer/blob/7c7a927d2dedb4c1fef722d6e9b22debf3f5c584/renderer/utils.py
#   (the differentiable rasteriser's renderer/utils.py before commit 0a84ad3, "fix(utils):
#   transpose_for_display: add static_argnames to avoid error when set second arg (#7)")
# observed on jax 0.10.2 CPU: transpose_for_display is wrapped in a plain
#   `partial(jax.jit, inline=True)`, so an explicitly passed `flip_vertical` is traced; the
#   default (not passed) stays a Python bool and works, but the call the changelog documents,
#   `transpose_for_display(img, flip_vertical=False)`, raises TracerBoolConversionError at
#   `if flip_vertical:` (line 107). Kept: the module as written; added: add_tracing_name copied
#   from renderer/_meta_utils.py, the Canvas/Texture/ZBuffer aliases from renderer/types.py,
#   `@jaxtyped(typechecker=None)` for the old bare `@jaxtyped` spelling, and the __main__ block
#   (a small random image, first displayed with the default flag, then with False).
# gap: other
from __future__ import annotations  # tolerate "subscriptable 'type' for < 3.9

import functools
import inspect
from functools import partial
from typing import Callable, Sequence, TypeVar, Union

import jax
import jax.numpy as jnp
from jax import lax
from jaxtyping import Array, Float, Integer, Num, Shaped, jaxtyped


# --- added: renderer/_meta_utils.py::add_tracing_name and aliases from renderer/types.py ---
def add_tracing_name(func):
    """Add tracing name to function."""

    members: dict[str, str]
    members = dict(inspect.getmembers(func, lambda v: isinstance(v, str)))
    annotation: str = (f"{members.get('__module__', '')}"
                       f":{members.get('__qualname__', '')}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with jax.named_scope(annotation):
            with jax.profiler.TraceAnnotation(annotation):
                return func(*args, **kwargs)

    return wrapper


Canvas = Float[Array, "width height channel"]
ZBuffer = Float[Array, "width height"]
Texture = Float[Array, "textureWidth textureHeight channel"]
# --- end of additions ---


@jaxtyped(typechecker=None)
@partial(jax.jit, inline=True)
@add_tracing_name
def get_value_from_index(
    matrix: Shaped[Array, "width height batch *valueDimensions"],
    index: Integer[Array, "width height"],
) -> Shaped[Array, "width height *valueDimensions"]:
    """Retrieve value along 3rd axis using index value from index matrix."""
    return jax.vmap(jax.vmap(lambda mt, ix: mt[ix]))(matrix, index)


@jaxtyped(typechecker=None)
@partial(jax.jit, inline=True)
@add_tracing_name
def merge_canvases(
    zbuffers: Num[Array, "batch width height"],
    canvases: Shaped[Array, "batch width height channel"],
) -> tuple[ZBuffer, Canvas]:
    """Merge canvases by selecting each pixel with max z value in zbuffer,
        then merge zbuffer as well.
    """
    pixel_idx: Integer[Array, "width height"] = jnp.argmax(zbuffers, axis=0)
    assert isinstance(pixel_idx, Integer[Array, "width height"])

    zbuffer: ZBuffer = get_value_from_index(
        lax.transpose(zbuffers, (1, 2, 0)),
        pixel_idx,
    )
    assert isinstance(zbuffer, ZBuffer)

    canvas: Canvas = get_value_from_index(
        # first vmap along width, then height, then choose among "faces"
        lax.transpose(canvases, (1, 2, 0, 3)),
        pixel_idx,
    )
    assert isinstance(canvas, Canvas)

    return zbuffer, canvas


@jaxtyped(typechecker=None)
@partial(jax.jit, inline=True)
@add_tracing_name
def transpose_for_display(
    matrix: Num[Array, "fst snd *channel"],
    flip_vertical: bool = True,
) -> Num[Array, "snd fst *channel"]:
    """Transpose matrix for display.

    When flip_vertical is disabled, the matrix's origin ([0, 0]) is assumed to
    be at bottom-left. Thus, the correct way to display the matrix is to using
    tools like matplotlib is to specify `origin="lower"`.
    To be compatible with PyTinyrenderer and most image processing programs,
    the default behavior is to flip vertically.
    """
    mat = jnp.swapaxes(matrix, 0, 1)
    assert isinstance(mat, Num[Array, "snd fst *channel"])
    if flip_vertical:  # expect: JIT101
        mat = mat[::-1, ...]

    return mat


@jaxtyped(typechecker=None)
@add_tracing_name
def build_texture_from_PyTinyrenderer(
    texture: Union[Num[Array, "length"], Sequence[float]],
    width: int,
    height: int,
) -> Texture:
    """Build a texture from PyTinyrenderer's format.

    The texture was specified in C order (channel varies the fastest), but with
    y as the first axis. Besides, after swapping the first two axes, the second axis is reversed as required by this renderer.

    Parameters:
      - texture: a 1D array of length `width * height * channels`, where each
        channel elements represent a pixel in RGB order. When channels is 1,
        the resulted texture still has 3 dimensions, with last dimension of
        side 1.
      - width: width of the texture.
      - height: height of the texture.

    Returns: A texture with shape `(width, height, channels)`.
    """
    return jnp.reshape(
        jnp.asarray(texture),
        (width, height, -1),
        order="C",
    ).swapaxes(0, 1)[:, ::-1, :]


if __name__ == "__main__":
    zbuffers = jax.random.uniform(jax.random.PRNGKey(0), (2, 8, 6))
    canvases = jax.random.uniform(jax.random.PRNGKey(1), (2, 8, 6, 3))
    zbuffer, img = merge_canvases(zbuffers, canvases)
    texture = build_texture_from_PyTinyrenderer(jnp.arange(4 * 3 * 3.0), 4, 3)
    assert transpose_for_display(img).shape == (6, 8, 3)
    # the documented way to keep the bottom-left origin
    flipped_off = transpose_for_display(img, flip_vertical=False)
