# source: https://github.com/MScherbela/lattice_boltzmann/blob/0a013dccf1a429cde7528d981ecd4708d094aa5e/lattice_boltzmann.py
#   (a D2Q9 lattice-Boltzmann solver: `_run_steps` jitted with `self` and `n_steps` static, a
#   jitted step closure built once in `initialize`; with naca_airfoil.py and the rotating-airfoil
#   driver example_airfoil.py from the same commit, all three merged into one module)
# observed on jax 0.10.2 CPU: runs clean; the driver rebinds `lbm.is_obstacle` at every frame but
#   `run` hands it to `_run_steps` as a traced argument, so every frame uses the new airfoil mask
#   and `_run_steps` compiles once for the whole run; `np.sum` of the traced velocity inside the
#   step dispatches to the tracer's own `sum` and stays traced.
#   Changed: sizes (nx 600 -> 120, ny 300 -> 60, airfoil_size 250 -> 50, inlet offset 80 -> 16,
#   angle schedule times x2500 -> x250); the driver's plotting, PNG output and per-frame print dropped and its
#   loop moved into __main__. Left out: `build_from_file` (imageio) and `run_animation_loop`
#   (matplotlib), and naca_airfoil.py's plotting __main__. Added: a compile count and a check
#   that the last frame's mask reached the solver.
# gap: stale-state-attributes
import numpy as np
import jax.numpy as jnp
import jax
from functools import partial

class LBMCalculator2D:
    n_directions = 9
    c_vecs = np.array([[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=int)
    weights = np.array([16, 4, 4, 4, 4, 1, 1, 1, 1], dtype=float) / 36

    def __init__(self, nx, ny, tau=1.0):
        self.tau = tau
        self.nx = nx
        self.ny = ny
        self.rho0 = 1.0
        self.is_obstacle = np.zeros([ny, nx], dtype=bool)
        self.initial_random_amplitude = 0.01
        self.fixed_boundaries = []

    def initialize(self, ux0=0.0, uy0=0.0):
        v0_distr = self.build_equalized_v_distribution(self.rho0, ux0, uy0)
        self.f = v0_distr[None, None, :] + self.rho0 * self.initial_random_amplitude * np.random.uniform(-1.0, 1.0, [self.ny, self.nx, self.n_directions])
        self.step_func = self._build_step_function()

    @partial(jax.jit, static_argnums=[0,1])
    def _run_steps(self, n_steps, f, obstacle_mask):
        def _loop_body(i, f):
            return self.step_func(f, obstacle_mask)
        return jax.lax.fori_loop(0, n_steps, _loop_body, f)

    def run(self, n_steps):
        self.f = self._run_steps(n_steps, self.f, self.is_obstacle)
        self.rho, self.u = self.get_observables(self.f)
        self.vorticity = self.calculate_vorticity(self.u)

        self.rho = np.where(self.is_obstacle, np.nan, self.rho)
        self.vorticity = np.where(self.is_obstacle, np.nan, self.vorticity)
        self.u = np.where(self.is_obstacle[...,None], np.nan, self.u)
        return self.f

    def add_obstacle_cylinder(self, x, y, r):
        yy, xx = np.arange(self.ny)[:, None], np.arange(self.nx)[None, :]
        self.is_obstacle = self.is_obstacle | ((xx - x) ** 2 + (yy - y) ** 2 < (r ** 2))

    def add_obstacle(self, mask):
        self.is_obstacle = self.is_obstacle | mask


    def add_fixed_boundary(self, mask, rho, ux, uy):
        v_distr = self.build_equalized_v_distribution(rho, ux, uy)
        self.fixed_boundaries.append([np.array(mask, dtype=bool)[...,None], v_distr])

    @staticmethod
    def flip_flow_direction(f):
        f = f[...,[0,2,1,4,3,8,7,6,5]]
        return f

    @classmethod
    def flow(cls, f):
        f_new = []
        for i,(cx,cy) in enumerate(cls.c_vecs):
            f_new.append(jnp.roll(jnp.roll(f[...,i], cy, axis=0), cx, axis=1))
        return jnp.stack(f_new, axis=-1)

    @classmethod
    def get_equilibrium_distribution(cls, f):
        rho, u = cls.get_observables(f)
        c_u = u @ cls.c_vecs.T # [batch x ndims]
        u_u = np.sum(u**2, axis=-1, keepdims=True)  # [batch x 1]
        f_eq = rho[..., None] * cls.weights * (1+3*c_u + 4.5*c_u**2 - 1.5 * u_u)
        return f_eq

    @classmethod
    def get_observables(cls, f):
        rho = jnp.sum(f, axis=-1)
        u = (f @ cls.c_vecs) / rho[..., None]
        return rho, u

    @staticmethod
    def calculate_vorticity(u):
        return jnp.gradient(u[...,1], axis=1) - jnp.gradient(u[...,0], axis=0)

    def build_equalized_v_distribution(self, rho, ux, uy):
        v_distr_init = np.ones(self.n_directions)
        u_scaling = self.n_directions / (1 - ux - uy)

        if ux > 0:
            v_distr_init[3] += ux * u_scaling
        else:
            v_distr_init[4] += ux * u_scaling

        if uy > 0:
            v_distr_init[1] += uy * u_scaling
        else:
            v_distr_init[2] += uy * u_scaling

        v_distr_init *= rho / np.sum(v_distr_init)
        return self.get_equilibrium_distribution(v_distr_init)


    def _build_step_function(self):
        @jax.jit
        def step_func(f, obstacle_mask):
            f = self.flow(f)
            f_eq = self.get_equilibrium_distribution(f)
            f += (f_eq - f) / self.tau

            # Apply reflecting boundaries
            f = jnp.where(obstacle_mask[..., None], self.flip_flow_direction(f), f)

            # Apply fixed boundaries at in-/outlets
            for mask, v_distr in self.fixed_boundaries:
                f = jnp.where(mask, v_distr, f)
            return f
        return step_func



def naca_00(t, thickness=15):
    return 0.05*thickness*(0.2969*np.sqrt(t) - 0.1260*t - 0.3516*t**2 + 0.2843*t**3 - 0.1036*t**4)

def naca_airfoil(x, camber, camber_pos, thickness):
    m = camber / 100
    p = camber_pos / 10
    yc = np.where(x < p, m / p ** 2 * (2 * p * x - x ** 2), m / (1 - p) ** 2 * ((1 - 2 * p) + 2 * p * x - x ** 2))
    dyc_dx = np.where(x < p, 2 * m / p ** 2 * (p - x), 2 * m / (1 - p ** 2) * (p - x))
    theta = np.arctan(dyc_dx)

    y00 = naca_00(x, thickness)
    xu = x - y00 * np.sin(theta)
    xl = x + y00 * np.sin(theta)
    yu = yc + y00 * np.cos(theta)
    yl = yc - y00 * np.cos(theta)
    return xu, yu, xl, yl

def rotate(degrees, x0, y0, x, y):
    phi = degrees * np.pi / 180
    M = np.array([[np.cos(phi), np.sin(phi)],[-np.sin(phi), np.cos(phi)]])
    offset = np.array([x0, y0])[:,None]
    z = np.stack([x,y], axis=0) - offset
    z = M @ z + offset
    return z[0,:], z[1,:]


def to_raster_image(nx, ny, xu, yu, xl, yl, x_offset, y_offset, scale):
    xu = np.array(np.round(xu*scale), dtype=int)
    yu = np.array(np.round(yu*scale), dtype=int)
    xl = np.array(np.round(xl*scale), dtype=int)
    yl = np.array(np.round(yl*scale), dtype=int)

    img = np.zeros([ny, nx], dtype=bool)
    img[y_offset - yu, x_offset + xu] = 1
    img[y_offset - yl, x_offset + xl] = 1
    for col in range(nx):
        ind = np.where(img[:,col])[0]
        if len(ind) >= 2:
            img[min(ind):max(ind), col] = 1
    return img

def get_airfoil_mask(nx, ny, offset_x, offset_y, angle, scale, camber=4, camber_pos=4, thickness=15):
    x = np.linspace(0, 1, 1000)
    xu, yu, xl, yl = naca_airfoil(x, camber, camber_pos, thickness)
    xu, yu = rotate(angle, 0.5, 0, xu, yu)
    xl, yl = rotate(angle, 0.5, 0, xl, yl)
    img = to_raster_image(nx, ny, xu, yu, xl, yl, offset_x, offset_y, scale)
    return img


nx = 120
ny = 60
tau = 0.6
n_t = 10_000
delta_t_images = 60

ux = 0.1
airfoil_size = 50

def build_obstacle_mask(angle):
    obstacle_mask = get_airfoil_mask(nx, ny, 16, ny//2, angle, airfoil_size)
    obstacle_mask[0,:] = 1
    obstacle_mask[-1,:] = 1
    return obstacle_mask

def get_angle(time):
    t = np.array([2, 6, 11, 14, 17]) * 250
    min_angle = 4.0
    max_angle = 30.0
    if time < t[0]:
        return min_angle
    if time < t[1]:
        return (max_angle - min_angle) * (time - t[0]) /(t[1]-t[0]) + min_angle
    if time < t[2]:
        return max_angle
    if time < t[3]:
        return (max_angle - min_angle) * (1- (time - t[2]) / (t[3] - t[2])) + min_angle
    if time < t[4]:
        return min_angle
    return None


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(kw.get("fun_name"))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    lbm = LBMCalculator2D(nx, ny, tau)
    lbm.add_obstacle(build_obstacle_mask(0.0))

    inlet_mask = np.zeros([ny, nx], dtype=bool)
    inlet_mask[1:-1,0] = 1
    # inlet_mask[1:-1,-1] = 1
    lbm.add_fixed_boundary(inlet_mask, lbm.rho0, ux, 0.0)
    lbm.initialize()

    t = 0
    frames = 0
    while True:
        t += delta_t_images
        angle = get_angle(t)
        if angle is None:
            break

        lbm.is_obstacle = build_obstacle_mask(angle)
        lbm.run(delta_t_images)
        frames += 1

    # the last frame's airfoil is the obstacle the solver saw: no flow inside it
    assert np.all(np.isnan(np.asarray(lbm.rho)[lbm.is_obstacle]))
    assert np.all(np.isfinite(np.asarray(lbm.rho)[~lbm.is_obstacle]))
    assert compiles.count("jit(_run_steps)") == 1, compiles
    print(f"{frames} frames, angle {get_angle(t - delta_t_images):.0f} deg at the end")
