# source: https://github.com/NACLab/ngc-learn/blob/c49daead7a509b281e79ba1ff21bb91e90d8fd6e/ngclearn/utils/diffeq/odes.py
#   (commit "removed @partial(jit, static_argnums=(0,))", the fix of the parent version in
#   ngclearn_cf53968_odes_static_time_arg_traced_in_scan.py; with solve_ode, rk4, euler,
#   _step_forward and _sum_combine from ngclearn/utils/diffeq/ode_solver.py at the same commit)
# observed on jax 0.10.2 CPU: runs clean: the example ODEs are now plain functions, so the
#   traced time in the scan carry reaches them as an ordinary argument; the jitted steps keep
#   dfx, dt, params and x_scale static (a function, Python floats and None, all hashable), and
#   solve_ode picks the step with a Python if/elif on its static method name. Kept from
#   odes.py: linear_2D and lorenz; the heun/rk2/ralston steps of ode_solver.py are left out
#   (solve_ode's dispatch is kept as written). Added: the __main__ block, calls from odes.py's
#   own __main__ (plotting left out) and one euler call with sols_only=False, with checks.
# gap: static-hashability
import jax.numpy as jnp
from jax import jit
from functools import partial
from jax.lax import scan as _scan



def linear_2D(t, x, params):
    '''
    :param x: 2D vector
            type: jax array
            shape:(2,)

    :param t: Unused

    :param params: Unused

    :return: 2D vector: [
                         -0.1 * x[0] + 2.0 * x[1],
                         -2.0 * x[0] - 0.1 * x[1]
                         ]
            type: jax array
            shape:(2,)

    ------------------------------------------
        * suggested init value-
                x0 = jnp.array([3, -1.5])
    '''
    coeff = jnp.array([[-0.1, 2],
                       [-2, -0.1]]).T
    dfx_ = jnp.matmul(x, coeff)

    return dfx_



def lorenz(t, x, params):
    '''
    :param x: 3D vector
            type: jax array
            shape:(3,)

    :param t: Unused

    :param params: Unused

    :return: 3D vector: [
                        10 * (x[1] - x[0]),
                        x[0] * (28 - x[2]) - x[1],
                        x[0] * x[1] - 8 / 3 * x[2],
                        ]
            type: jax array
            shape:(3,)

    ------------------------------------------
        * suggested init value-
                x0 = jnp.array([-8, 7, 27])
    '''
    x_ = x[..., 0]
    y_ = x[..., 1]
    z_ = x[..., 2]

    dx = 10 * y_ - 10 * x_
    dy = 28 * x_ - x_ * z_ - y_
    dz = x_ * y_ - 8 / 3 * z_

    return jnp.stack([dx, dy, dz], axis=-1)




@jit
def _sum_combine(*args, **kwargs): ## fast co-routine for simple addition
    sum = 0

    for arg, val in zip(args, kwargs.values()):
        sum = sum + val * arg
    return sum

@partial(jit, static_argnums=(3, 4))
def _step_forward(t, x, dx_dt, dt, x_scale): ## internal step co-routine
    _t = t + dt
    _x = x * x_scale + dx_dt * dt
    return _t, _x

@partial(jit, static_argnums=(1, 2, 3, 4, ))
def euler(carry, dfx, dt, params, x_scale=1.):
    """
    Iteratively integrates one step forward via the Euler method, i.e., a
    first-order Runge-Kutta (RK-1) step.

    Args:
        t: current time variable to advance by dt

        x: current variable values to advance/iteratively integrate (at time `t`)

        dfx: (ordinary) differential equation co-routine (as implemented in an
            ngc-learn component)

        dt: integration time step (also referred to as `h` in mathematics)

        params: tuple containing configuration values/hyper-parameters for the
            (ordinary) differential equation an ngc-learn component will provide

        x_scale: dampening factor to scale `x` by (Default: 1)

    Returns:
        variable values iteratively integrated/advanced to next step (`t + dt`)
    """
    t, x = carry

    dx_dt = dfx(t, x, params)
    _t, _x = _step_forward(t, x, dx_dt, dt, x_scale)

    new_carry = (_t, _x)
    return new_carry, (new_carry, carry)

@partial(jit, static_argnums=(1, 2, 3, 4, ))
def rk4(carry, dfx, dt, params, x_scale=1.):
    """
    Iteratively integrates one step forward via the midpoint method, i.e., a
    fourth-order Runge-Kutta (RK-4) step.
    (Note: ngc-learn internally recognizes "rk4" or this routine)

    | Reference:
    | Ascher, Uri M., and Linda R. Petzold. Computer methods for ordinary
    | differential equations and differential-algebraic equations. Society for
    | Industrial and Applied Mathematics, 1998.

    Args:
        t: current time variable to advance by dt

        x: current variable values to advance/iteratively integrate (at time `t`)

        dfx: (ordinary) differential equation co-routine (as implemented in an
            ngc-learn component)

        dt: integration time step (also referred to as `h` in mathematics)

        params: tuple containing configuration values/hyper-parameters for the
            (ordinary) differential equation an ngc-learn component will provide

        x_scale: dampening factor to scale `x` by (Default: 1)

    Returns:
        variable values iteratively integrated/advanced to next step (`t + dt`)
    """

    t, x = carry

    dfx_1 = dfx(t, x, params)
    t2, x2 = _step_forward(t, x, dfx_1, dt * 0.5, x_scale)

    dfx_2 = dfx(t2, x2, params)
    t3, x3 = _step_forward(t, x, dfx_2, dt * 0.5, x_scale)

    dfx_3 = dfx(t3, x3, params)
    t4, x4 = _step_forward(t, x, dfx_3, dt, x_scale)

    dfx_4 = dfx(t4, x4, params)

    _dx_dt = _sum_combine(dfx_1, dfx_2, dfx_3, dfx_4, w_f1=1, w_f2=2, w_f3=2, w_f4=1)
    _t, _x = _step_forward(t, x, _dx_dt / 6, dt, x_scale)

    new_carry = (_t, _x)
    return new_carry, (new_carry, carry)


@partial(jit, static_argnums=(0, 3, 4, 5, 6, 7, 8))
def solve_ode(method_name, t0, x0, T, dfx, dt, params=None, x_scale=1., sols_only=True):

    if method_name =='euler':
        method = euler
    elif method_name == 'heun':
        method = heun
    elif method_name == 'rk2':
        method = rk2
    elif method_name =='rk4':
        method = rk4
    elif method_name =='ralston':
        method = ralston

    def scanner(carry, _):
        return method(carry, dfx, dt, params, x_scale)

    x_T, (xs_next, xs_carry) = _scan(scanner, init=(t0, x0), xs=jnp.arange(T))

    if not sols_only:
        return x_T, xs_next, xs_carry

    return xs_next


if __name__ == "__main__":
    t0 = 0.
    dt = 0.01

    # 1. Linear 2D System
    x0 = jnp.array([3, -1.5], dtype=jnp.float32)
    t, x_lin2D = solve_ode('rk4', t0=t0, x0=x0, T=3000, dfx=linear_2D, dt=dt, params=None, sols_only=True)
    # 3. Lorenz System (3D)
    x0 = jnp.array([-8, 7, 27], dtype=jnp.float32)
    t, x_lorenz = solve_ode('rk4', t0=t0, x0=x0, T=2000, dfx=lorenz, dt=dt, params=None, sols_only=True)
    (t_final, x_final), (ts_sol, sol_euler), _ = solve_ode('euler', t0, x0, T=800, dfx=lorenz, dt=dt, params=None, sols_only=False)
    assert x_lin2D.shape == (3000, 2) and x_lorenz.shape == (2000, 3)
    assert abs(float(t[-1]) - 20.0) < 1e-3
    assert bool(jnp.all(jnp.isfinite(x_lorenz))) and bool(jnp.all(jnp.isfinite(sol_euler)))
