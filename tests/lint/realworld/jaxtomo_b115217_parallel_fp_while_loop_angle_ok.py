# source: https://github.com/clemisch/jaxtomo/blob/b11521701750323f19721bbcfca95dda21e469ba/jaxtomo/projectors/parallel_fp.py
#   (an individual's tomographic projectors in JAX; with multi_vmap, interp2d and jaxmap of
#   jaxtomo/util.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean under jit. The angle is folded into (-pi/4, pi/4] with
#   lax.while_loop (not a Python while on the traced theta), the detector sizes U, V are
#   static_argnames, and the volume sizes X, Y come from vol.shape, static under jit; the
#   angles are mapped with lax.scan, so get_fp compiles once for a sinogram and again only for
#   new shapes. The single-device pmap wrapper gives the same sinogram.
# gap: exemption-vs-JAX
# Kept: parallel_fp.py as written. Added: the three util.py helpers in place of the relative
#   import (`from ..util import ...`), and the __main__ block (a disc phantom projected at 8
#   angles, checked against the disc's analytic chord lengths).
import jax
import jax.numpy as jnp
import jax.scipy as jsp
from functools import partial


# --- added: from jaxtomo/util.py (same commit) ---
def multi_vmap(fun, in_axes, out_axes):
    """ vmap over several axes """
    batched_fun = fun
    for inax, outax in zip(in_axes, out_axes):
        batched_fun = jax.vmap(batched_fun, inax, outax)
    return batched_fun


def interp2d(x, y, xlims, ylims, vals):
    x_lo, x_hi = xlims
    y_lo, y_hi = ylims
    n_x, n_y = vals.shape

    # transform x,y into pixel values
    x = (x - x_lo) * (n_x - 1.) / (x_hi - x_lo)
    y = (y - y_lo) * (n_y - 1.) / (y_hi - y_lo)

    vals_interp = jsp.ndimage.map_coordinates(
        vals, 
        (x, y), 
        order=1,
        mode="constant", 
        cval=0.0,
    )
    return vals_interp


def jaxmap(f, xs, unroll=1):
    """ Redefine jax.lax.map to get unroll support """
    g = lambda _, x: ((), f(x))
    _, ys = jax.lax.scan(g, (), xs, unroll=unroll)
    return ys
# --- end of added code ---


def _get_ray_2d(vol, theta, u, v, xx, yy):
    def get_point(z, img_slice):
        x = 1. / jnp.cos(theta) * (u - z * jnp.sin(theta))
        val = interp2d(
            v, x,
            (yy[0], yy[-1]),
            (xx[0], xx[-1]),
            img_slice
        )
        return val

    points = jax.vmap(get_point, (0, 1), 0)(xx, vol)
    ray = jnp.sum(points)

    # weight with length through voxel
    ray = ray / jnp.cos(theta)

    return ray



@partial(jax.jit, static_argnames=("U", "V"))
def _get_fp_angle(vol, theta, dX, U, dU, V, dV):
    def cond_fun(arg):
        angle, _ = arg
        is_valid_angle = jnp.logical_and(
            (-jnp.pi / 4) < angle, 
            angle <= (jnp.pi / 4)
        )
        return jnp.logical_not(is_valid_angle)

    def body_fun(arg):
        angle, im = arg
        im = im.transpose((0, 2, 1))
        im = im[:, ::-1]
        angle = angle - jnp.pi / 2
        return angle, im

    theta, vol = jax.lax.while_loop(
        cond_fun,
        body_fun,
        (theta, vol)
    )

    dY = dX
    Y = vol.shape[0]
    X = vol.shape[1]

    # width in px/vx => one px/vx smaller than physical volume/detector!
    width_img = dX * (X - 1)
    height_img = dY * (Y - 1)
    width_proj = dU * (U - 1)
    height_proj = dV * (V - 1)

    # origins
    O_X = dX * (-0.5 * X + 0.5)
    O_Y = dY * (-0.5 * Y + 0.5)
    O_U = dU * (-0.5 * U + 0.5)
    O_V = dV * (-0.5 * V + 0.5)

    xx = jnp.linspace(0., 1., X, endpoint=True) * width_img + O_X
    yy = jnp.linspace(0., 1., Y, endpoint=True) * height_img + O_Y
    uu = jnp.linspace(0., 1., U, endpoint=True) * width_proj + O_U
    vv = jnp.linspace(0., 1., V, endpoint=True) * height_proj + O_V

    get_proj = multi_vmap(
        _get_ray_2d,
        (   
            (None, None, 0, None, None, None), 
            (None, None, None, 0, None, None)
        ),
        (0, 0)
    )
    proj = get_proj(vol, theta, uu, vv, xx, yy)

    return proj


@partial(jax.jit, static_argnames=("U", "V"))
def get_fp(vol, thetas, dX, U, dU, V, dV):

    # map over angles to get full FP
    projs = jaxmap(
        lambda theta: _get_fp_angle(vol, theta, dX, U, dU, V, dV),
        thetas,
        unroll=1
    )

    return projs

    
# TODO: change to "static_argnames" once JAX supports it
@partial(
    jax.pmap, 
    in_axes=(None, 0, None, None, None, None, None),
    static_broadcasted_argnums=(3, 5)
)
def _get_fp_pmap(vol, thetas, dX, U, dU, V, dV):
    proj = get_fp(vol, thetas, dX, U, dU, V, dV)
    return proj


def get_fp_pmap(vol, thetas, dX, U, dU, V, dV):
    nangles = thetas.shape[0]
    ndevices = jax.device_count()
    assert nangles % ndevices == 0

    thetas = thetas.reshape(ndevices, -1)
    proj = _get_fp_pmap(vol, thetas, dX, U, dU, V, dV)
    proj = proj.reshape(nangles, V, U)

    return proj


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    N = 32
    yy, xx = jnp.meshgrid(jnp.arange(N) - N / 2 + 0.5, jnp.arange(N) - N / 2 + 0.5, indexing="ij")
    R = 10.0
    disc = (yy**2 + xx**2 <= R**2).astype(jnp.float32)
    vol = jnp.stack([disc] * 4)  # 4 slices, (Z, Y, X)
    thetas = jnp.linspace(0, jnp.pi, 8, endpoint=False)
    proj = get_fp(vol, thetas, 1., N, 1., 4, 1.)
    assert proj.shape == (8, 4, N), proj.shape
    # a disc projects to the same chord profile 2*sqrt(R^2 - u^2) at every angle
    u = jnp.arange(N) - N / 2 + 0.5
    chord = 2 * jnp.sqrt(jnp.clip(R**2 - u**2, 0, None))
    assert float(jnp.max(jnp.abs(proj[:, 0, 12:20] - chord[12:20]))) < 1.5, proj[:, 0]
    inputs = [(vol * (k + 2), thetas + 0.01 * (k + 1)) for k in range(3)]
    jax.block_until_ready(inputs)
    before = len(compiles)
    for v, th in inputs:
        proj2 = get_fp(v, th, 1., N, 1., 4, 1.)
    assert len(compiles) == before, compiles[before:]
    proj_pmap = get_fp_pmap(vol, thetas, 1., N, 1., 4, 1.)
    assert jnp.allclose(proj_pmap, proj, atol=1e-4)
    print("sinogram", proj.shape, "no recompiles for new volumes and angles")
