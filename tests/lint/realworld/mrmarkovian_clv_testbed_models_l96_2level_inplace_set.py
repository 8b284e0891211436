# source: https://github.com/Mr-Markovian/Covariant_lyapunov_Vectors/blob/109e5924e6daa6d0aa5b8b03b84ed6be691122e5/codes/clv_calculation/testbed_models.py
# observed on jax 0.10.2 CPU: L96_2level, the two-scale Lorenz-96 right-hand side of this
#   data-assimilation / covariant-Lyapunov-vector project, builds dx with jnp.zeros_like and
#   fills it by slice assignment; `dx[0:d_x]=dx_dt` raises TypeError ("JAX arrays are
#   immutable and do not support in-place item assignment"), so the model cannot be evaluated
#   at all (the next line's assignment is the same bug, hidden by the raise).
# gap: other
# (the module is kept as written; added: the __main__ block evaluating L96_2level on a small
#  state, d_x=4 slow and d_y=3 fast variables per slow one, the way the project's other scripts
#  call L96 and L63)
import jax.numpy as jnp
import numpy as np

# L96 2-level model, 
def L96_2level(t,x_,d_x,d_y,F_x,c=10,b=10,h=1):
    "2 scale lorenz 96 model, the input is combined vector x_=[x y] "
    X=x_[0:d_x]
    Y=x_[d_x:].reshape(d_x,d_y)
    dx_dt=-jnp.roll(X,-1)*(jnp.roll(X,-2)-jnp.roll(X,1))-X+F_x-(h*c/b)*jnp.sum(Y,axis=1)
    dy_dt=-c*b*(jnp.roll(Y,1,axis=1)*(jnp.roll(Y,2,axis=1)-jnp.roll(Y,-1,axis=1)))-c*Y+(h*c/b)*jnp.tile(X,(d_y,1)).T
    dx=jnp.zeros_like(x_)
    dx[0:d_x]=dx_dt  # expect: JIT501
    dx[d_x:]=dy_dt.flatten()  # tolerate: JIT501
    return dx

# L96 single level model with forcing=10
def L96(x_,forcing=8.):
    "Function to be used for compuation of ode in scipy.integrate.solve_ivp"
    dx_dt=(jnp.roll(x_,-1)-jnp.roll(x_,2))*jnp.roll(x_,1)-x_+forcing
    return dx_dt

#Lorenz-63 with default values: sigma=10, rho=28, beta=8/3
def L63(x,sigma=10.,rho=28.,beta=8./3):
    "Function to be used for compuation of ode in scipy.integrate.solve_ivp"
    return jnp.array([sigma*(x[1]-x[0]),x[0]*(rho-x[2])-x[1],x[0]*x[1]-beta*x[2]])


if __name__ == "__main__":
    d_x, d_y = 4, 3
    x0 = jnp.asarray(np.random.default_rng(0).normal(size=d_x + d_x * d_y))
    print(L96(x0[:d_x]), L63(x0[:3]))
    print(L96_2level(0.0, x0, d_x, d_y, F_x=10.0))
