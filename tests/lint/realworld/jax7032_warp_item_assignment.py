# source: https://github.com/jax-ml/jax/issues/7032
# observed on jax 0.10.2 CPU: TypeError: JAX arrays are immutable and do not support
#   in-place item assignment, at the first `xy[:, :2] = ...` while jax.jit traces jx_warp.
#   The two later item assignments repeat the bug and are never reached; they are tolerated.
#   The boxes and the matrix M the user passed were not shown; a small box array and an
#   affine matrix stand in for them, and the report's mis-indented `else:` is re-indented.
# gap: other
import jax
import jax.numpy as jnp

def jx_warp(boxes,M,width,height):
    n = len(boxes)
    if n:
        xy = jnp.ones((n * 4, 3))
        xy[:, :2] = boxes[:, [0, 1, 2, 3, 0, 3, 2, 1]].reshape(  # expect: JIT501
            n * 4, 2)
        xy = xy @ M.T
        xy = (xy[:, :2] / xy[:, 2:3]).reshape(n, 8) 
        x = xy[:, [0, 2, 4, 6]]
        y = xy[:, [1, 3, 5, 7]]
        xy = jnp.concatenate(
            (x.min(1), y.min(1), x.max(1), y.max(1))).reshape(4, n).T
        xy[:, [0, 2]] = xy[:, [0, 2]].clip(0, width)  # tolerate: JIT501
        xy[:, [1, 3]] = xy[:, [1, 3]].clip(0, height)  # tolerate: JIT501
        return xy.astype(jnp.float32)
    else:
        return boxes


boxes = jnp.array([[10., 20., 50., 60.], [30., 40., 70., 90.]])
M = jnp.array([[1., 0., 5.], [0., 1., -5.], [0., 0., 1.]])
jax.jit(jx_warp)(boxes, M, 100, 100)
