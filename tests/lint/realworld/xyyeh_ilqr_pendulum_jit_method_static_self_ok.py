# source: https://github.com/xyyeh/learning/blob/87126940c4c7126ed141e378c5a46cd85af012fc/General/notes/Optimal%20Control/ILQRJax.ipynb
#   (a learner's notebook porting an iLQR pendulum to JAX: the dynamics class and the
#   rollout cell; the IPython `%time` lines are plain calls here, the commented-out
#   `%time` and print lines and the docstrings are left out)
# observed on jax 0.10.2 CPU: runs clean; PendulumDynamics.f is jitted with self static
#   (hashed by identity), and every attribute it reads (self.f_) is set once in
#   __init__ and never changed, so no trace goes stale; each instance traces f once and
#   the 400-step rollouts reuse it. Current spelling: `jax.ops.index_update(a,
#   jax.ops.index[i], v)` (removed from JAX) is written `a.at[i].set(v)`. Added: the
#   __main__ block, which checks the rollout, runs it again and counts the
#   compiled entries of the jitted functions.
# gap: stale-state-attributes
import jax
import jax.numpy as jnp
from jax import make_jaxpr, jit, jacfwd, jacrev
from functools import partial

M = 1 # kg
G = 9.8 # ms^-2
L = 1 # m
DT = 0.005 # s

class PendulumDynamics:
    def __init__(self, m, g, L, dt):
        # states
        self.m_ = m
        self.g_ = g
        self.L_ = L
        self.dt_ = dt

        # dynamics
        @jit
        def f(x, u):
            return jnp.array([
                [dt*x[1] + x[0]],                                   # [dt*theta_dot + theta]
                [x[1] + dt*(-L*g*m*jnp.sin(x[0]) + u)/(L**2*m)]     # [theta_dot + dt*(-L*g*m*sin(theta) + u)/(L**2*m)]
                ])
        self.f_ = f

    # Note: his is related to https://github.com/google/jax/issues/1251, the main issue is 
    # with the 'self' part that indicates an arbitrary class. By using static_argnums we're 
    # telling jit to compile only the computation that gets applied to the other arguments, 
    # and just to re-trace and re-compile every time the first argument changes its Python 
    # object id
    @partial(jit, static_argnums=(0,))
    def f(self, x, u):
        return self.f_(x, u)

    # @partial(jit, static_argnums=(0,))
    def f_x(self, x, u):
        return jacfwd(self.f_, 0)(x, u)

    # @partial(jit, static_argnums=(0,))
    def f_u(self, x, u):
        return jacfwd(self.f_, 1)(x, u)

    # @partial(jit, static_argnums=(0,))
    def f_xx(self, x, u):
        return jnp.squeeze(jacfwd(jacrev(self.f_))(x, u), axis=1)

    # @partial(jit, static_argnums=(0,))
    def f_uu(self, x, u):
        return jacfwd(jacrev(self.f_, 1), 1)(x, u)

    # @partial(jit, static_argnums=(0,))
    def f_xu(self, x, u):
        return jnp.squeeze(jacfwd(jacrev(self.f_, 1), 0)(x, u), axis=1)


dyn = PendulumDynamics(M, G, L, DT)

x = jnp.array([0.1, 0.1])
u = jnp.array(0.5)

print(x.shape)
print(u.shape)

_ = dyn.f(x,u)

print(dyn.f(x,u))


class IterativeLQR:
    def __init__(self, init_state, target_state, initial_guess, dt, start_time, end_time, dynamics, Q_k, R_k, Q_T, n_iterations):
        # states
        self.init_state_ = init_state
        self.target_state_ = target_state
        self.inputs_ = initial_guess
        self.n_states_ = jnp.shape(init_state)[0] # The dimensions of the state vector
        self.n_inputs_ = jnp.shape(initial_guess)[1] # The dimension of the control vector

        # timing
        self.dt_ = dt
        self.start_time_ = start_time
        self.end_time_ = end_time
        self.time_span_ = jnp.arange(start_time, end_time, dt).flatten()
        self.n_timesteps_ = len(self.time_span_)

        # cost due to dynamics
        self.dynamics_ = dynamics

        # weighting for loss function, i.e. L = x_T^T Q_T x_T + sum of (x_k^T Q_k x_k + u_k^T R_k u_k)
        self.Q_k_ = Q_k # Weight for state vector
        self.R_k_ = R_k # Weight for control vector
        self.Q_T_ = Q_T # Weight for terminal state

        # max iterations to run
        self.n_iterations_ = n_iterations

        # costs
        self.expected_cost_reduction_ = 0
        self.expected_cost_reduction_grad_ = 0
        self.expected_cost_reduction_hess_ = 0

#     @partial(jit, static_argnums=(0,))
    def rollout(self):
        # we store states and inputs as:
        # state = [., x_1, x_2, ..., x_N]
        # input =    [u_0, u_1, ..., u_{N-1}]
        # the first value in state is understood as self.init_state_
        states = jnp.zeros((self.n_timesteps_+1, self.n_states_)) # including initial state, x_0 to x_N
        inputs = jnp.zeros((self.n_timesteps_, self.n_inputs_)) # u_0 to u_{N-1}

        # store x0
        states = states.at[0,:].set(self.init_state_)

        # integration of the system dynamics
        current_state = self.init_state_
        for i in range(0, self.n_timesteps_): # 0 to N-1
            current_input = jnp.squeeze(self.inputs_[i,:]) # u_k
            next_state = jnp.squeeze(self.dynamics_.f(current_state, current_input), axis=1) # x_{k+1} = f(x_k, u_k)
            # store both u_k and x_{k+1}
            states = states.at[i+1,:].set(next_state)
            inputs = inputs.at[i,:].set(current_input)
            # update current state
            current_state = current_state.at[:].set(next_state)

        return states, inputs

start_time = 0
end_time = 2
time_span = jnp.arange(start_time, end_time, DT)

# set states (start and end states are at rest)
n_states = 2 # position and velocity
n_inputs = 1 # inputs to the system
init_state = jnp.array([0.1, 0.])
target_state = jnp.array([jnp.pi, 0.])

# initial guess for control inputs
initial_input_guess = 0.1*jnp.ones((time_span.shape[0], n_inputs))

# define weights
Q_k = jnp.zeros((n_states, n_states)) # just find a valid trajectory first
R_k = 0.001*jnp.eye(n_inputs)
Q_T = 100*jnp.eye(n_states)

# iterations
n_iterations = 50

# ilqr
dynamics = PendulumDynamics(M, G, L, DT)
ilqr = IterativeLQR(init_state, target_state, initial_input_guess, DT, start_time, end_time, dynamics, Q_k, R_k, Q_T, n_iterations)

[states, inputs] = ilqr.rollout()

if __name__ == "__main__":
    assert states.shape == (401, 2)
    assert jnp.allclose(states[1], jnp.array([0.1, -0.00439184]), atol=1e-6)
    again, _ = ilqr.rollout()
    assert jnp.allclose(again, states)
    # one compiled entry of f per instance (dyn, dynamics), none added by the second rollout
    assert PendulumDynamics.f._cache_size() == 2
