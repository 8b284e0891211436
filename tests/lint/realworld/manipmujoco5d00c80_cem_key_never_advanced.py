# source: https://github.com/alinjar1996/manipulator_mujoco/blob/5d00c80289376f850cd0a6b16050aa82097cd1b6/sampling_based_planner/mjx_planner.py
# observed on jax 0.10.2 CPU: see the observed lines; the CEM planner's sampling key is never advanced between MPC steps, and inside an iteration the key that drew the samples is handed on as the carry key
# gap: stale-state-attributes
# observed: line 118 compute_xi_samples draws with `key` and returns that same `key` as the carry: redrawing with the returned key reproduces xi_samples exactly (subkey is never used)
# observed: line 191 compute_cem splits the constant self.key on every call, so two MPC steps (run_cem_planner's control loop) draw identical noise: thetadot(step 2) - thetadot(step 1) is the same for every sample in the batch
# (stand-ins: MuJoCo/MJX is not installed, so __init__ drops the MjModel/mjx model set-up, the Bernstein basis is replaced by identity/finite-difference matrices,
#  compute_projection_filter is the identity and compute_rollout_single integrates joint velocities with a toy forward-kinematics instead of mjx.step;
#  compute_xi_samples, comp_prod, compute_mean_cov, compute_ellite_samples, compute_cost_single, cem_iter and compute_cem are as in the repository)
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp


class cem_planner():

	def __init__(self, num_dof=None, num_batch=None, num_steps=None, timestep=None, maxiter_cem=None, num_elite=None, w_pos=None, w_rot=None, w_col=None, 
			     maxiter_projection=None):
		super(cem_planner, self).__init__()
	 
		self.num_dof = num_dof
		self.num_batch = num_batch
		self.t = timestep
		self.num = num_steps
		self.num_elite = num_elite
		self.cost_weights = {
			'w_pos': w_pos,
			'w_rot': w_rot,
			'w_col': w_col,
		}

		self.t_fin = self.num*self.t

		# stand-in for the Bernstein basis
		self.P = np.identity(self.num)
		self.Pdot = np.identity(self.num)
		self.Pddot = np.identity(self.num)

		self.P_jax, self.Pdot_jax, self.Pddot_jax = jnp.asarray(self.P), jnp.asarray(self.Pdot), jnp.asarray(self.Pddot)

		self.nvar_single = jnp.shape(self.P_jax)[1]
		self.nvar = self.nvar_single*self.num_dof 

		A_theta, A_thetadot, A_thetaddot = self.get_A_traj()
		self.A_theta = jnp.asarray(A_theta)
		self.A_thetadot = jnp.asarray(A_thetadot)
		self.A_thetaddot = jnp.asarray(A_thetaddot)

		self.key= jax.random.PRNGKey(0)
		self.maxiter_projection = maxiter_projection
		self.maxiter_cem = maxiter_cem

		self.ellite_num = int(self.num_elite*self.num_batch)

		self.alpha_mean = 0.6
		self.alpha_cov = 0.6

		self.lamda = 10
		self.g = 10
		self.vec_product = jax.jit(jax.vmap(self.comp_prod, 0, out_axes=(0)))

		self.compute_rollout_batch = jax.vmap(self.compute_rollout_single, in_axes = (0, None, None))
		self.compute_cost_batch = jax.vmap(self.compute_cost_single, in_axes = (0))

	def get_A_traj(self):
		A_theta = np.kron(np.identity(self.num_dof), self.P )
		A_thetadot = np.kron(np.identity(self.num_dof), self.Pdot )
		A_thetaddot = np.kron(np.identity(self.num_dof), self.Pddot )
		return A_theta, A_thetadot, A_thetaddot	

	@partial(jax.jit, static_argnums=(0,))
	def compute_projection_filter(self, xi_samples, state_term):
		# stand-in: the ADMM projection onto velocity/acceleration/position limits is omitted
		return xi_samples

	@partial(jax.jit, static_argnums=(0,))
	def compute_rollout_single(self, thetadot, init_pos, init_vel):
		# stand-in for the mjx.step rollout
		thetadot_single = thetadot.reshape(self.num_dof, self.num)
		theta = init_pos[:, None] + jnp.cumsum(thetadot_single, axis=1)*self.t
		eef_pos = jnp.stack([jnp.cos(theta[0]), jnp.sin(theta[0]), 0.1*theta[1]], axis=1)
		eef_rot = jnp.stack([jnp.cos(theta[1]/2), jnp.zeros(self.num), jnp.zeros(self.num), jnp.sin(theta[1]/2)], axis=1)
		collision = jnp.ones((self.num, 1))
		return theta.flatten(), eef_pos, eef_rot, collision
	
	@partial(jax.jit, static_argnums=(0,))
	def compute_cost_single(self, thetadot, eef_pos, eef_rot, collision, target_pos, target_rot):
		cost_g_ = jnp.linalg.norm(eef_pos - target_pos, axis=1)
		cost_g = cost_g_[-1] + jnp.sum(cost_g_[:-1])*1

		dot_product = jnp.abs(jnp.dot(eef_rot/jnp.linalg.norm(eef_rot, axis=1).reshape(1, self.num).T, target_rot/jnp.linalg.norm(target_rot)))
		dot_product = jnp.clip(dot_product, -1.0, 1.0)
		cost_r_ = 2 * jnp.arccos(dot_product)
		cost_r = cost_r_[-1] + jnp.sum(cost_r_[:-1])*1


		y = 0.005
		collision = collision.T

		g = -collision[:, 1:]+collision[:, :-1]-y*collision[:, :-1]

		cost_c = jnp.sum(jnp.max(g.reshape(g.shape[0], g.shape[1], 1), axis=-1, initial=0)) + jnp.sum(collision < 0)

		cost = self.cost_weights['w_pos']*cost_g + self.cost_weights['w_rot']*cost_r + self.cost_weights['w_col']*cost_c
		return cost, cost_g, cost_r, cost_c
	
	@partial(jax.jit, static_argnums=(0, ))
	def compute_ellite_samples(self, cost_batch, xi_filtered):
		idx_ellite = jnp.argsort(cost_batch)
		cost_ellite = cost_batch[idx_ellite[0:self.ellite_num]]
		xi_ellite = xi_filtered[idx_ellite[0:self.ellite_num]]
		return xi_ellite, idx_ellite, cost_ellite
	
	@partial(jax.jit, static_argnums=(0,))
	def compute_xi_samples(self, key, xi_mean, xi_cov ):
		key, subkey = jax.random.split(key)
		xi_samples = jax.random.multivariate_normal(key, xi_mean, xi_cov+0.003*jnp.identity(self.nvar), (self.num_batch, ))  # expect: JIT502
		return xi_samples, key
	
	@partial(jax.jit, static_argnums=(0,))
	def comp_prod(self, diffs, d ):
		term_1 = jnp.expand_dims(diffs, axis = 1)
		term_2 = jnp.expand_dims(diffs, axis = 0)
		prods = d * jnp.outer(term_1,term_2)
		return prods	
	
	@partial(jax.jit, static_argnums=(0,))
	def compute_mean_cov(self, cost_ellite, mean_control_prev, cov_control_prev, xi_ellite):
		w = cost_ellite
		w_min = jnp.min(cost_ellite)
		w = jnp.exp(-(1/self.lamda) * (w - w_min ) )
		sum_w = jnp.sum(w, axis = 0)
		mean_control = (1-self.alpha_mean)*mean_control_prev + self.alpha_mean*(jnp.sum( (xi_ellite * w[:,jnp.newaxis]) , axis= 0)/ sum_w)
		diffs = (xi_ellite - mean_control)
		prod_result = self.vec_product(diffs, w)
		cov_control = (1-self.alpha_cov)*cov_control_prev + self.alpha_cov*(jnp.sum( prod_result , axis = 0)/jnp.sum(w, axis = 0)) + 0.0001*jnp.identity(self.nvar)
		return mean_control, cov_control
	
	@partial(jax.jit, static_argnums=(0,))
	def cem_iter(self, carry, _):
		init_pos, init_vel, target_pos, target_rot, xi_mean, xi_cov, key, state_term = carry

		xi_mean_prev = xi_mean 
		xi_cov_prev = xi_cov

		xi_samples, key = self.compute_xi_samples(key, xi_mean, xi_cov)
		xi_filtered = self.compute_projection_filter(xi_samples, state_term)


		thetadot = jnp.dot(self.A_thetadot, xi_filtered.T).T


		theta, eef_pos, eef_rot, collision = self.compute_rollout_batch(thetadot, init_pos, init_vel)



		cost_batch, cost_g_batch, cost_r_batch, cost_c_batch = self.compute_cost_batch(thetadot, eef_pos, eef_rot, collision, target_pos, target_rot)

		xi_ellite, idx_ellite, cost_ellite = self.compute_ellite_samples(cost_batch, xi_samples)
		xi_mean, xi_cov = self.compute_mean_cov(cost_ellite, xi_mean_prev, xi_cov_prev, xi_ellite)

		carry = (init_pos, init_vel, target_pos, target_rot, xi_mean, xi_cov, key, state_term)

		return carry, (cost_batch, cost_g_batch, cost_r_batch, cost_c_batch, thetadot, theta)

	@partial(jax.jit, static_argnums=(0,))
	def compute_cem(
		self, xi_mean, 
		init_pos=jnp.array([1.5, -1.8, 1.75, -1.25, -1.6, 0]), 
		init_vel=jnp.zeros(6), 
		init_acc=jnp.zeros(6),
		target_pos=jnp.zeros(3),
		target_rot=jnp.zeros(4)
		):

		theta_init = jnp.tile(init_pos, (self.num_batch, 1))
		thetadot_init = jnp.tile(init_vel, (self.num_batch, 1))
		thetaddot_init = jnp.tile(init_acc, (self.num_batch, 1))
		thetadot_fin = jnp.zeros((self.num_batch, self.num_dof))
		thetaddot_fin = jnp.zeros((self.num_batch, self.num_dof))

		target_pos = jnp.tile(target_pos, (self.num_batch, 1))
		target_rot = jnp.tile(target_rot, (self.num_batch, 1))

		state_term = jnp.hstack((theta_init, thetadot_init, thetaddot_init, thetadot_fin, thetaddot_fin))
		state_term = jnp.asarray(state_term)
		
		xi_cov = 10*jnp.identity(self.nvar)
  
		key, subkey = jax.random.split(self.key)  # expect: JIT502

		carry = (init_pos, init_vel, target_pos, target_rot, xi_mean, xi_cov, key, state_term)
		scan_over = jnp.array([0]*self.maxiter_cem)
		carry, out = jax.lax.scan(self.cem_iter, carry, scan_over, length=self.maxiter_cem)
		cost_batch, cost_g_batch, cost_r_batch, cost_c_batch, thetadot, theta = out

		idx_min = jnp.argmin(cost_batch[-1])
		cost = jnp.min(cost_batch, axis=1)
		best_vels = thetadot[-1][idx_min].reshape((self.num_dof, self.num)).T
		best_traj = theta[-1][idx_min].reshape((self.num_dof, self.num)).T

		best_cost_g = cost_g_batch[-1][idx_min]
		best_cost_r = cost_r_batch[-1][idx_min]
		best_cost_c = cost_c_batch[-1][idx_min]

		xi_mean = carry[4]

		return cost, best_cost_g, best_cost_r, best_cost_c, best_vels, best_traj, xi_mean, thetadot, theta 


if __name__ == "__main__":
    num_dof = 2
    cem = cem_planner(num_dof=num_dof, num_batch=16, num_steps=5, timestep=0.05, maxiter_cem=1,
                      num_elite=0.25, w_pos=3.0, w_rot=0.5, w_col=10.0, maxiter_projection=5)

    # (1) the key returned by compute_xi_samples is the key that drew the samples
    xi_mean0 = jnp.zeros(cem.nvar)
    xi_cov0 = 10*jnp.identity(cem.nvar)
    samples, carry_key = cem.compute_xi_samples(cem.key, xi_mean0, xi_cov0)
    redrawn = jax.random.multivariate_normal(carry_key, xi_mean0, xi_cov0+0.003*jnp.identity(cem.nvar), (cem.num_batch, ))  # tolerate: JIT502
    assert np.allclose(samples, redrawn), "carry key differs from the sampling key"
    print("compute_xi_samples: returned carry key redraws the same samples")

    # (2) two MPC steps as in mpc_planner.run_cem_planner: xi_mean and the joint state change between calls
    target_pos = jnp.array([0.5, 0.5, 0.0])
    target_rot = jnp.array([1.0, 0.0, 0.0, 0.0])
    qpos = jnp.array([0.1, -0.2])
    qvel = jnp.zeros(num_dof)
    out1 = cem.compute_cem(xi_mean0, qpos, qvel, jnp.zeros(num_dof), target_pos, target_rot)
    xi_mean1 = out1[6]
    thetadot1 = out1[7][0]
    qpos2 = qpos + 0.05 * out1[4][0]
    out2 = cem.compute_cem(xi_mean1, qpos2, qvel, jnp.zeros(num_dof), target_pos, target_rot)
    thetadot2 = out2[7][0]
    diff = thetadot2 - thetadot1
    assert not np.allclose(xi_mean1, xi_mean0)
    assert np.allclose(diff, diff[0][None, :], atol=1e-4), "noise differs between MPC steps"
    print("compute_cem: both MPC steps drew the same noise; samples differ only by the mean shift", np.asarray(diff[0][:3]))
