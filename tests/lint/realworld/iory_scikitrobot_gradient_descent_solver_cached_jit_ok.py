# source: https://github.com/iory/scikit-robot/blob/ece6f3f323f3816485a5e0d6233c81b70c9691e2/skrobot/planner/trajectory_optimization/solvers/gradient_descent.py
#   scikit-robot's gradient-descent trajectory-optimisation solver: _build_jit_solver jits a solve_fn
#   (fori_loop of value_and_grad steps, max_iterations static) once per problem structure and values and
#   keeps it in self._jit_cache, so repeated solve() calls reuse the compiled function.
# observed on jax 0.10.2 CPU: runs clean; two solve() calls on one solver and one problem compile
#   jit(solve_fn) once, and the solved trajectory has a lower cost than the initial one.
#   Changed: module docstring and the macOS JAX_PLATFORMS block dropped; the in-method imports of
#   solver_utils and fk_utils replaced by module-level names. Added: ResidualSpec, SolverResult,
#   BaseSolver and solver_utils' two key functions copied from the same commit (docstrings shortened),
#   a stand-in TrajectoryProblem with the repository's add_smoothness_cost/add_posture_cost
#   (no robot model), stand-ins for the six fk_utils helpers (only used with collision/cartesian costs,
#   not reached here), and the __main__ block.
# gap: per-call-recompile
import hashlib
from abc import ABC
from abc import abstractmethod

import numpy as np


class ResidualSpec:
    def __init__(
        self,
        name,
        residual_fn,
        params,
        kind='soft',
        weight=1.0,
    ):
        self.name = name
        self.residual_fn = residual_fn
        self.params = params
        self.kind = kind
        self.weight = weight


class SolverResult:
    def __init__(
        self,
        trajectory,
        success=True,
        cost=0.0,
        iterations=0,
        message='',
        info=None,
    ):
        self.trajectory = np.asarray(trajectory)
        self.success = success
        self.cost = cost
        self.iterations = iterations
        self.message = message
        self.info = info or {}


class BaseSolver(ABC):
    def __init__(self, verbose=False):
        self.verbose = verbose

    @abstractmethod
    def solve(
        self,
        problem,
        initial_trajectory,
        **kwargs,
    ):
        pass

    def _validate_trajectory(self, trajectory, problem):
        trajectory = np.asarray(trajectory)
        n_total = getattr(problem, 'n_total_dof', problem.n_joints)
        expected_shape = (problem.n_waypoints, n_total)

        if trajectory.shape != expected_shape:
            raise ValueError(
                f"Trajectory shape {trajectory.shape} does not match "
                f"expected shape {expected_shape}"
            )

        return trajectory


def get_problem_structure_key(problem):
    residual_names = tuple(sorted(r.name for r in problem.residuals))
    residual_weights = tuple(
        (r.name, r.weight) for r in problem.residuals
    )

    # Only include waypoint constraint *indices*, not values
    wp_constraint_indices = tuple(
        idx for idx, _ in problem.waypoint_constraints
    )

    # Include obstacle *count*, not positions (structure-based)
    n_obstacles = 0
    if problem.world_obstacles:
        n_obstacles = len(problem.world_obstacles)

    # Include EE waypoint cost *structure*, not target values
    ee_wp_structure = tuple(
        (c['waypoint_index'], c['position_weight'], c['rotation_weight'])
        for c in problem.ee_waypoint_costs
    )

    # Check if cartesian path exists (structure, not values)
    has_cartesian = any(
        spec.name == 'cartesian_path' for spec in problem.residuals
    )

    return (
        problem.n_waypoints,
        problem.n_joints,
        residual_names,
        residual_weights,
        problem.fixed_start,
        problem.fixed_end,
        problem.collision_spheres is not None,
        wp_constraint_indices,
        n_obstacles,
        ee_wp_structure,
        has_cartesian,
    )


def get_problem_value_hash(problem):
    hash_parts = []

    # Hash obstacle positions
    if problem.world_obstacles:
        for obs in problem.world_obstacles:
            hash_parts.append(str(obs.get('center', [])))
            hash_parts.append(str(obs.get('radius', 0)))

    # Hash EE waypoint targets
    for c in problem.ee_waypoint_costs:
        hash_parts.append(c['target_position'].tobytes())
        hash_parts.append(c['target_rotation'].tobytes())

    # Hash cartesian path targets
    for spec in problem.residuals:
        if spec.name == 'cartesian_path':
            params = spec.params
            target_pos = params.get('target_positions')
            if target_pos is not None:
                hash_parts.append(target_pos.tobytes())
            target_rot = params.get('target_rotations')
            if target_rot is not None:
                hash_parts.append(target_rot.tobytes())

    # Hash waypoint constraint values
    for _, angles in problem.waypoint_constraints:
        hash_parts.append(angles.tobytes())

    if not hash_parts:
        return None

    combined = b''.join(
        p if isinstance(p, bytes) else p.encode() for p in hash_parts
    )
    return hashlib.md5(combined).hexdigest()[:16]


# Stand-ins for skrobot.planner.trajectory_optimization.fk_utils (not reached without
# collision, cartesian or end-effector costs).
def build_fk_functions(fk_data, xp):
    raise NotImplementedError


def compute_collision_residuals(signed_dists, activation, xp):
    raise NotImplementedError


def compute_self_collision_distances(sphere_pos, sphere_radii, pairs_i, pairs_j, xp):
    raise NotImplementedError


def compute_sphere_obstacle_distances(sphere_pos, sphere_radii, centers, radii, xp):
    raise NotImplementedError


def pose_error_log(pos, rot, t_pos, t_rot):
    raise NotImplementedError


def prepare_fk_data(problem, xp):
    raise NotImplementedError


class TrajectoryProblem:
    """Stand-in: the attributes the solver reads, for a chain of n_joints joints."""

    def __init__(self, n_joints, n_waypoints=20, dt=0.1):
        self.n_waypoints = n_waypoints
        self.dt = dt
        self.n_joints = n_joints
        self.n_total_dof = n_joints
        self.joint_limits_lower = -np.pi * np.ones(n_joints)
        self.joint_limits_upper = np.pi * np.ones(n_joints)
        self.residuals = []
        self.collision_spheres = None
        self.world_obstacles = []
        self.fixed_start = True
        self.fixed_end = True
        self.waypoint_constraints = []
        self.ee_waypoint_costs = []

    def add_smoothness_cost(self, weight=1.0):
        self.residuals.append(ResidualSpec(
            name='smoothness',
            residual_fn='smoothness',
            params={'weight': weight},
            kind='soft',
            weight=weight,
        ))

    def add_posture_cost(self, nominal_angles, weight=0.1):
        nominal_angles = np.array(nominal_angles)
        self.residuals.append(ResidualSpec(
            name='posture',
            residual_fn='posture',
            params={
                'nominal_angles': nominal_angles,
            },
            kind='soft',
            weight=weight,
        ))


class GradientDescentSolver(BaseSolver):
    """Simple gradient descent solver.

    Fast but can get stuck in local minima for complex problems.
    Recommended for simple problems or when speed is critical.

    JIT compilation is cached based on problem structure, so solving
    the same type of problem multiple times will be much faster after
    the first call.
    """

    def __init__(
        self,
        max_iterations=300,
        learning_rate=0.001,
        max_grad_norm=100.0,
        verbose=False,
    ):
        """Initialize gradient descent solver.

        Parameters
        ----------
        max_iterations : int
            Maximum optimization iterations.
        learning_rate : float
            Gradient descent step size.
        max_grad_norm : float
            Maximum gradient norm for clipping.
        verbose : bool
            Print optimization progress.
        """
        super().__init__(verbose=verbose)
        self.max_iterations = max_iterations
        self.learning_rate = learning_rate
        self.max_grad_norm = max_grad_norm
        # Cache for JIT-compiled solve functions
        self._jit_cache = {}

    def _get_problem_structure_key(self, problem):
        """Generate cache key from problem structure."""
        return get_problem_structure_key(problem)

    def _get_problem_value_hash(self, problem):
        """Generate hash of problem values."""
        return get_problem_value_hash(problem)

    def solve(
        self,
        problem,
        initial_trajectory,
        **kwargs,
    ):
        """Solve trajectory optimization using gradient descent.

        Parameters
        ----------
        problem : TrajectoryProblem
            Problem definition.
        initial_trajectory : ndarray
            Initial trajectory (n_waypoints, n_joints).
        **kwargs
            Additional options.

        Returns
        -------
        SolverResult
            Optimization result.
        """
        import jax.numpy as jnp

        initial_trajectory = self._validate_trajectory(
            initial_trajectory, problem
        )

        max_iterations = kwargs.get('max_iterations', self.max_iterations)
        learning_rate = kwargs.get('learning_rate', self.learning_rate)

        # Auto-scale learning rate based on maximum cost weight
        max_weight = max(
            (r.weight for r in problem.residuals), default=1.0
        )
        if max_weight > 1.0:
            learning_rate = learning_rate / (max_weight ** 0.25)

        # Check cache for JIT-compiled solver using two-level caching:
        # 1. Structure key for cache slot identity
        # 2. Value hash to detect when solver needs rebuilding
        structure_key = self._get_problem_structure_key(problem)
        value_hash = self._get_problem_value_hash(problem)

        need_rebuild = False
        if structure_key not in self._jit_cache:
            need_rebuild = True
        elif self._jit_cache[structure_key].get('value_hash') != value_hash:
            need_rebuild = True

        if need_rebuild:
            self._jit_cache[structure_key] = {
                'value_hash': value_hash,
                'jit_solve': self._build_jit_solver(problem),
            }

        jit_solve = self._jit_cache[structure_key]['jit_solve']

        # Convert to JAX arrays
        trajectory = jnp.array(initial_trajectory)
        lower = jnp.array(problem.joint_limits_lower)
        upper = jnp.array(problem.joint_limits_upper)

        # Run JIT-compiled solver
        trajectory, final_cost = jit_solve(
            trajectory, lower, upper, learning_rate, max_iterations
        )

        return SolverResult(
            trajectory=np.array(trajectory),
            success=True,
            cost=float(final_cost),
            iterations=max_iterations,
            message='Gradient descent completed',
        )

    def _build_jit_solver(self, problem):
        """Build JIT-compiled solver function for given problem structure."""
        import jax
        import jax.numpy as jnp

        # Build cost function
        cost_fn = self._build_cost_function(problem)
        cost_and_grad = jax.value_and_grad(cost_fn)

        max_grad_norm = self.max_grad_norm
        fixed_start = problem.fixed_start
        fixed_end = problem.fixed_end

        # Collect waypoint constraints as static data
        wp_constraints = [
            (idx, jnp.array(angles))
            for idx, angles in problem.waypoint_constraints
        ]

        def solve_fn(trajectory, lower, upper, learning_rate, max_iterations):
            start = trajectory[0]
            end = trajectory[-1]

            # State: (current_traj, best_traj, best_cost)
            def body_fn(i, state):
                traj, best_traj, best_cost = state
                cost, grad = cost_and_grad(traj)

                # Gradient clipping
                grad_norm = jnp.sqrt(jnp.sum(grad ** 2) + 1e-10)
                grad = jax.lax.cond(
                    grad_norm > max_grad_norm,
                    lambda g: g * (max_grad_norm / grad_norm),
                    lambda g: g,
                    grad
                )

                # Gradient step
                new_traj = traj - learning_rate * grad

                # Clip to joint limits
                new_traj = jnp.clip(new_traj, lower, upper)

                # Fix endpoints
                if fixed_start:
                    new_traj = new_traj.at[0].set(start)
                if fixed_end:
                    new_traj = new_traj.at[-1].set(end)

                # Fix intermediate waypoints
                for wp_idx, wp_angles in wp_constraints:
                    new_traj = new_traj.at[wp_idx].set(wp_angles)

                # Track best trajectory
                new_cost = cost_fn(new_traj)
                is_better = new_cost < best_cost
                new_best_traj = jax.lax.cond(
                    is_better,
                    lambda _: new_traj,
                    lambda _: best_traj,
                    None,
                )
                new_best_cost = jnp.where(is_better, new_cost, best_cost)

                return (new_traj, new_best_traj, new_best_cost)

            initial_cost = cost_fn(trajectory)
            _, best_traj, best_cost = jax.lax.fori_loop(
                0, max_iterations, body_fn,
                (trajectory, trajectory, initial_cost),
            )
            return best_traj, best_cost

        # JIT compile with static argnums for max_iterations
        return jax.jit(solve_fn, static_argnums=(4,))

    def _build_cost_function(self, problem):
        """Build cost function from problem definition.

        Parameters
        ----------
        problem : TrajectoryProblem
            Problem definition.

        Returns
        -------
        callable
            Cost function: cost(trajectory) -> scalar.
        """
        import jax
        import jax.numpy as jnp


        dt = problem.dt

        # Collision data
        has_collision = problem.collision_spheres is not None

        # Check if cartesian_path cost is present
        has_cartesian = any(
            s.name == 'cartesian_path' for s in problem.residuals
        )
        has_ee_waypoints = len(problem.ee_waypoint_costs) > 0

        get_sphere_positions = None
        get_ee_pose = None
        sphere_radii = None

        # Build FK data if needed for collision, cartesian path,
        # or EE waypoint costs
        if has_collision or has_cartesian or has_ee_waypoints:
            fk_data = prepare_fk_data(problem, jnp)
            if has_collision:
                sphere_radii = fk_data['sphere_radii']
            _, get_sphere_positions_fn, _, get_ee_pose_fn = \
                build_fk_functions(fk_data, jnp)
            get_sphere_positions = get_sphere_positions_fn
            get_ee_pose = get_ee_pose_fn

        # Parse residual specs
        costs_config = []
        for spec in problem.residuals:
            costs_config.append({
                'name': spec.name,
                'weight': spec.weight,
                'params': spec.params,
            })

        def cost_fn(trajectory):
            total_cost = 0.0

            for config in costs_config:
                name = config['name']
                weight = config['weight']
                params = config['params']

                if name == 'smoothness':
                    diff = trajectory[1:] - trajectory[:-1]
                    total_cost = total_cost + weight * jnp.sum(diff ** 2)

                elif name == 'acceleration':
                    acc = (trajectory[2:] - 2 * trajectory[1:-1]
                           + trajectory[:-2]) / (dt ** 2)
                    total_cost = total_cost + weight * jnp.sum(acc ** 2)

                elif name == 'jerk':
                    acc = (trajectory[2:] - 2 * trajectory[1:-1]
                           + trajectory[:-2]) / (dt ** 2)
                    jerk = (acc[1:] - acc[:-1]) / dt
                    total_cost = total_cost + weight * jnp.sum(jerk ** 2)

                elif name == 'posture':
                    nominal = jnp.array(params['nominal_angles'])
                    diff = trajectory - nominal[None, :]
                    total_cost = total_cost + weight * jnp.sum(diff ** 2)

                elif name == 'world_collision' and has_collision:
                    obstacles = params['obstacles']
                    activation = params['activation_distance']

                    sphere_obs = [o for o in obstacles if o['type'] == 'sphere']
                    if sphere_obs:
                        obs_centers = jnp.stack(
                            [jnp.array(o['center']) for o in sphere_obs]
                        )
                        obs_radii = jnp.array([o['radius'] for o in sphere_obs])

                        def coll_cost_single(angles):
                            sphere_pos = get_sphere_positions(angles)
                            signed_dists = compute_sphere_obstacle_distances(
                                sphere_pos, sphere_radii,
                                obs_centers, obs_radii, jnp
                            )
                            residuals = compute_collision_residuals(
                                signed_dists, activation, jnp
                            )
                            return jnp.sum(residuals ** 2)

                        coll_costs = jax.vmap(coll_cost_single)(trajectory)
                        total_cost = total_cost + weight * jnp.sum(coll_costs)

                elif name == 'self_collision' and has_collision:
                    pair_indices = params['pair_indices']
                    activation = params['activation_distance']
                    pairs_i, pairs_j = pair_indices

                    if len(pairs_i) > 0:
                        pairs_i_arr = jnp.array(pairs_i)
                        pairs_j_arr = jnp.array(pairs_j)

                        def self_coll_cost_single(angles):
                            sphere_pos = get_sphere_positions(angles)
                            signed_dists = compute_self_collision_distances(
                                sphere_pos, sphere_radii,
                                pairs_i_arr, pairs_j_arr, jnp
                            )
                            residuals = compute_collision_residuals(
                                signed_dists, activation, jnp
                            )
                            return jnp.sum(residuals ** 2)

                        self_coll_costs = jax.vmap(
                            self_coll_cost_single
                        )(trajectory)
                        total_cost = (total_cost
                                      + weight * jnp.sum(self_coll_costs))

                elif name == 'cartesian_path' and has_cartesian:
                    target_pos = jnp.array(params['target_positions'])
                    target_rots = params.get('target_rotations')
                    rot_w = params.get('rotation_weight', 1.0)

                    if target_rots is not None:
                        target_rots = jnp.array(target_rots)

                        def cart_cost_single(args):
                            angles, t_pos, t_rot = args
                            ee_pos, ee_rot = get_ee_pose(angles)
                            # Use SE(3) logarithmic map for pose error
                            pose_err = pose_error_log(
                                ee_pos, ee_rot, t_pos, t_rot)
                            pos_err = jnp.sum(pose_err[:3] ** 2)
                            rot_err = jnp.sum(pose_err[3:] ** 2)
                            return pos_err + rot_w * rot_err

                        cart_costs = jax.vmap(cart_cost_single)(
                            (trajectory, target_pos, target_rots)
                        )
                    else:
                        def cart_cost_pos_only(args):
                            angles, t_pos = args
                            ee_pos, _ = get_ee_pose(angles)
                            return jnp.sum((ee_pos - t_pos) ** 2)

                        cart_costs = jax.vmap(cart_cost_pos_only)(
                            (trajectory, target_pos)
                        )
                    total_cost = total_cost + weight * jnp.sum(cart_costs)

                elif name == 'joint_velocity_limit':
                    v_max = jnp.array(params['max_velocities'])
                    vel_dt = params['dt']
                    v_limit = v_max * vel_dt
                    dq = trajectory[1:] - trajectory[:-1]
                    # Hinge penalty: max(0, |dq| - v_limit)^2
                    violation = jnp.maximum(jnp.abs(dq) - v_limit, 0.0)
                    total_cost = (total_cost
                                  + weight * jnp.sum(violation ** 2))

            # EE waypoint costs (not part of residuals loop)
            if has_ee_waypoints:
                for c in problem.ee_waypoint_costs:
                    wp_idx = c['waypoint_index']
                    t_pos = jnp.array(c['target_position'])
                    t_rot = jnp.array(c['target_rotation'])
                    pw = c['position_weight']
                    rw = c['rotation_weight']
                    angles = trajectory[wp_idx]
                    ee_pos, ee_rot = get_ee_pose(angles)
                    # Use SE(3) logarithmic map for pose error
                    pose_err = pose_error_log(ee_pos, ee_rot, t_pos, t_rot)
                    pos_err = jnp.sum(pose_err[:3] ** 2)
                    rot_err = jnp.sum(pose_err[3:] ** 2)
                    total_cost = (total_cost
                                  + pw * pos_err
                                  + rw * rot_err)

            return total_cost

        return cost_fn


if __name__ == "__main__":
    import jax

    compiled = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiled.append(kw.get('fun_name'))
        if event == '/jax/core/compile/backend_compile_duration' else None)

    problem = TrajectoryProblem(n_joints=3, n_waypoints=10)
    problem.add_smoothness_cost(weight=1.0)
    problem.add_posture_cost(np.full(3, 0.5), weight=0.1)
    rng = np.random.default_rng(0)
    initial = np.linspace(np.zeros(3), np.ones(3), 10) + 0.1 * rng.standard_normal((10, 3))

    solver = GradientDescentSolver(max_iterations=50, learning_rate=0.01)
    first = solver.solve(problem, initial)
    second = solver.solve(problem, initial)
    assert compiled.count('jit(solve_fn)') == 1, compiled
    np.testing.assert_allclose(first.trajectory, second.trajectory)
    cost_fn = solver._build_cost_function(problem)
    assert first.cost < float(cost_fn(initial)), (first.cost, float(cost_fn(initial)))
    print("cost", float(cost_fn(initial)), "->", first.cost)
