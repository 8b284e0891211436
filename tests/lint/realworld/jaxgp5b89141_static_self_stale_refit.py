# source: https://github.com/JDAI27/JAX_GP/blob/5b89141b7ba796512d139dc5a6339b0e5d559b3f/code/GaussianProcess.py (and code/Kernel.py, same commit)
# observed on jax 0.10.2 CPU: methods jitted with static `self` bake the first fit's X_train/y_vec/alpha/K/param_values into the cache; refitting the same GP on new data keeps optimising and predicting with the old data, and every fit recompiles its local `step`
# gap: stale-state-attributes
# added: imports (`from jax.config import config` -> `jax.config`), Kernel class and rbf_kernel copied from code/Kernel.py (KernelSum/KernelProduct/ICM and other kernels dropped),
#        predict's return_cov branch dropped (it fails for an unrelated reason: cho_factor's (c, lower) tuple is passed as the factor),
#        unused GaussianProcess methods dropped (_log_marginal_likelihood/_lml_grad, nll_value_and_grad, MCMC helpers, classifier), small data, __main__ block
import logging

import jax
import jax.numpy as jnp
from jax import jit, grad, vmap
from functools import partial
from jax.scipy.linalg import cho_factor, cho_solve
from jax.example_libraries import optimizers
from jax.scipy.optimize import minimize
jax.config.update('jax_enable_x64', True)


class Kernel:
    def __init__(self, kernel_function, num_params, param_values, param_bounds, eval_gradient=True,kernel_name=" "):
        mv = vmap(jit(kernel_function), (0, None, None), 0)
        self.kernel_function = vmap (mv, (None, 0, None), 1)
        self.kernel_name = kernel_name
        self.num_params = num_params
        self.param_values = jnp.array(param_values)
        self.param_bounds = param_bounds
        self.eval_gradient = eval_gradient

        if eval_gradient:
            g_kernel = jit(grad(kernel_function, argnums=2))
            mv = vmap(g_kernel, (0, None, None), 0)
            self.kernel_gradient = vmap (mv, (None, 0, None), 1)

    def __call__(self, X1, X2 = None):
        """It computes the kernel function with the given input points X1 and X2 and the current kernel parameter values."""
        if X2 == None:
            X2 = X1
        return self.kernel_function(X1, X2, self.param_values)  # expect: JIT201

    def gradient(self, X1, X2, params = None):
        """It computes the gradient of the kernel function with respect to the kernel parameters."""
        if not self.eval_gradient:
            raise ValueError("Gradient evaluation is not enabled for this kernel")
        if params is None:
            params = self.param_values
        return self.kernel_gradient(X1, X2, params)


def rbf_kernel(X1, X2, params):
    params = jnp.array(params)
    if len(params) == 1:
        # isotropic RBF kernel with length scale = params[0]
        sq_norm = jnp.sum((X1 - X2) ** 2, axis=-1)
        return jnp.exp(-0.5 * sq_norm / params[0] ** 2)
    elif len(params) == X1.shape[-1]:
        # ARD (automatic relevance determination) kernel with length scales = params
        sq_diff = (X1 - X2) ** 2
        return jnp.exp(-0.5 * jnp.sum(sq_diff / params ** 2, axis=-1))
    else:
        raise ValueError("Incorrect number of parameters for RBF kernel")


class GaussianProcess:
    def __init__(self, kernel=None, sigma_n=1e-5,is_mogp = False,output_dim =1, optimizer='adam', **optimizer_kwargs):
        self.kernel = kernel  # Kernel function for the Gaussian Process
        self.sigma_n = sigma_n  # Noise level (variance) for the observations
        self.optimizer = optimizer  # Optimizer for kernel parameter optimization
        self.optimizer_kwargs = optimizer_kwargs  # Additional arguments for the optimizer
        self.X_train = None  # Training data (features)
        self.y_train = None  # Training data (targets)
        self.alpha = None  # Alpha vector for making predictions
        self.K = None  # Covariance matrix of the training data
        self.LML_ = None # Log Marginal Likelihood of the Gaussian Process
        self.is_mogp = is_mogp # If the model is a multi-output Gaussian Process
        self.output_dim = output_dim  # Number of outputs (dimensions) of the Gaussian Process

        # Set the optimizer function based on the optimizer name
        if self.optimizer == 'adam':
            self.optimizer = self.adam_optimizer
        elif self.optimizer == 'scipy':
            self.optimizer = self.scipy_minimize

    # Incomplete function for optimizing kernel parameters using Scipy's BFGS optimizer
    def scipy_minimize(self, obj_func, initial_theta, bounds):
        # Use Scipy's BFGS optimizer to minimize the objective function
        res = minimize(obj_func, initial_theta, method='BFGS')

        # Get the optimized kernel parameters
        theta_opt = res.x

        # Clip the optimized parameters to the specified bounds
        bounds = jnp.array(bounds)
        theta_opt = jnp.array([jnp.clip(param, bounds[i, 0], bounds[i, 1]) for i, param in enumerate(theta_opt)])

        # Compute the minimum value of the objective function
        func_min = obj_func(theta_opt)[0]

        # Return the optimized kernel parameters and the minimum value of the objective function
        return theta_opt, func_min

    # Function for optimizing kernel parameters using JAX's Adam optimizer
    def adam_optimizer(self, obj_func, initial_theta, bounds, num_epochs=1000, step_size=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
        opt_init, opt_update, get_params = optimizers.adam(step_size=step_size, b1=beta1, b2=beta2, eps=eps)
        state = opt_init(initial_theta)
        bounds = jnp.atleast_2d(bounds)
        #bounds = jnp.log(jnp.array(bounds))

        # Define a single optimization step
        @jit  # expect: JIT301
        def step(i, opt_state):
            params = get_params(opt_state)
            value, grads = obj_func(params)

            # Clip the gradients according to the bounds
            clipped_grads = jnp.array([jnp.where((params[i] + grads[i] > bounds[i, 0]) & (params[i] + grads[i] < bounds[i, 1]), grads[i], 0)
                                        for i in range(len(grads))])

            updated_state = opt_update(i, clipped_grads, opt_state)
            return updated_state, value

        # Perform optimization
        for i in range(num_epochs):
            state, loss = step(i, state)

        theta_opt = get_params(state)
        func_min = obj_func(theta_opt)[0]
        return theta_opt, func_min

    # Function for fitting the Gaussian Process model to the given data
    def fit(self, X, y):

        self.X_train = jnp.atleast_2d(X) # Store the training data (inputs)
        if self.is_mogp:
            self.y_train = jnp.atleast_2d(y)
            self.y_vec = jnp.atleast_2d(y)[:,:-1]
        else:
            self.y_train = jnp.atleast_2d(y).T  # Store the training data (targets)
            self.y_vec = self.y_train

        # Optimize kernel parameters
        self._optimize_kernel_params()

        # Compute alpha with optimized kernel parameters
        self.K = self.kernel(self.X_train, self.X_train) + self.sigma_n**2 * jnp.eye(self.X_train.shape[0])
        # L = jnp.linalg.cholesky(self.K)
        L, lower = cho_factor(self.K)
        self.alpha = cho_solve((L, True), self.y_vec)

    # Compute the loss and gradients of the log-marginal likelihood given kernel parameters
    @partial(jit, static_argnums=(0,))
    def _loss_and_grads(self, params):
        # Compute the covariance matrix (K) using the kernel function and add the noise term
        K = self.kernel.kernel_function(self.X_train, self.X_train, params) + self.sigma_n**2 * jnp.eye(self.X_train.shape[0])  # expect: JIT201

        # Compute the Cholesky decomposition (L) of the covariance matrix (K).
        #L = jnp.linalg.cholesky(K)

        L, lower = cho_factor(K + self.sigma_n**2 * jnp.eye(self.X_train.shape[0]))

        # Check for numerical issues
        #numerical_issues = jnp.isnan(L).any() or jnp.isinf(L).any()
        #if numerical_issues:
        #    return (-jnp.inf, jnp.zeros_like(params)) if self.kernel.eval_gradient else -jnp.inf

        # Compute the log-marginal likelihood using the alpha vector, the Cholesky decomposition (L), and the noise term
        alpha = cho_solve((L, True), self.y_vec)  # expect: JIT201
        log_marginal_likelihood = -0.5 * jnp.dot(self.y_vec.T, alpha) - jnp.sum(jnp.log(jnp.diag(L))) - len(self.X_train) * 0.5 * jnp.log(2 * jnp.pi)  # expect: JIT201

        K_gradient = self.kernel.gradient(self.X_train, self.X_train, params)  # expect: JIT201
        V = cho_solve((L, True), jnp.eye(K.shape[0]))[:, :, jnp.newaxis]
        log_marginal_likelihood_gradient = 0.5 * jnp.einsum("ijk,ijk->k", jnp.einsum("ij,ik->ijk", alpha, alpha) - V, K_gradient)

        return -log_marginal_likelihood, -log_marginal_likelihood_gradient

    # Optimize the kernel parameters using the specified optimizer
    def _optimize_kernel_params(self):
        def obj_func(params,):
            if self.kernel.eval_gradient:
                loss_val, grads = self._loss_and_grads(params)
                #loss_val, grads = self.nll_value_and_grad(params)
                return loss_val, grads
            else:
                loss_val, _ = self._loss_and_grads(params)
                #loss_val, _ = self.nll_value_and_grad(params)
                return loss_val

        initial_theta = self.kernel.param_values
        bounds = self.kernel.param_bounds

        theta_opt, func_min = self.optimizer(obj_func, initial_theta, bounds)
        self.kernel.param_values = theta_opt
        self.LML_ = -func_min

    # Make predictions with the Gaussian Process model
    @partial(jit, static_argnums=(0,2))
    def predict(self, X_star, return_cov = False):

        K_star = self.kernel(self.X_train, X_star)  # expect: JIT201
        y_mean = jnp.dot(K_star.T, self.alpha)  # expect: JIT201

        if self.is_mogp:
            y_mean = jnp.vstack((y_mean, X_star[:, -1][:, None]))



        if return_cov:
            raise NotImplementedError  # (branch dropped, see header)
        else:
            return y_mean


if __name__ == "__main__":
    import numpy as np

    compiled = []

    class _CompileLog(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if msg.startswith("Compiling jit(step)"):
                compiled.append(msg)

    logging.getLogger("jax").addHandler(_CompileLog())
    logging.getLogger("jax").setLevel(logging.WARNING)
    jax.config.update("jax_log_compiles", True)

    def f(X):
        return jnp.sin(3 * X[:, 0] + 10 * X[:, 1]) * X[:, 0]

    n = 12
    X_a = jnp.array([jnp.linspace(0, 1, n), jnp.linspace(-1, 0, n)]).T
    X_b = jnp.array([jnp.linspace(1, 2, n), jnp.linspace(0, 1, n)]).T   # new batch of observations, same size
    X_test = jnp.array([jnp.linspace(0, 2, 7), jnp.linspace(-1, 1, 7)]).T

    kernel = Kernel(rbf_kernel, 2, jnp.ones(2), jnp.array([(1e-5, 1e5)] * 2), kernel_name='rbf')  # bounds as an array: current jnp.atleast_2d rejects lists
    gp = GaussianProcess(kernel=kernel, sigma_n=1e-2, optimizer='adam')
    gp.fit(X_a, f(X_a))
    gp.predict(X_test)
    n_step_compiles_first = len(compiled)

    gp.fit(X_b, 2.0 * f(X_b))     # refit the same GP on the new data
    n_step_compiles = len(compiled)

    # the jitted methods with static self vs the same method bodies run eagerly on the current attributes
    p = gp.kernel.param_values
    loss_jit, grad_jit = gp._loss_and_grads(p)
    loss_eager, grad_eager = GaussianProcess._loss_and_grads.__wrapped__(gp, p)
    mean_jit = gp.predict(X_test)
    mean_eager = GaussianProcess.predict.__wrapped__(gp, X_test)

    # observed: line 153, line 166, line 167, line 169 after refitting on X_b, _loss_and_grads still returns the loss/gradient of the first data set (cached trace keeps the old X_train/y_vec)
    assert not np.allclose(loss_jit, loss_eager) and not np.allclose(grad_jit, grad_eager)
    # observed: line 198, line 199 predict() after the refit returns the old fit's mean (old X_train, alpha and kernel param_values baked in)
    assert not np.allclose(mean_jit, mean_eager)
    # observed: line 38 as in Introduction_to_MCMC_inference.ipynb: setting kernel.param_values after a predict() leaves the cached predict on the old values
    mean_before = gp.predict(X_test)
    gp.kernel.param_values = gp.kernel.param_values * 2.0
    assert np.allclose(gp.predict(X_test), mean_before)
    assert not np.allclose(GaussianProcess.predict.__wrapped__(gp, X_test), mean_before)
    # observed: line 109 the local @jit step is compiled again on every fit (same shapes)
    assert n_step_compiles_first == 1 and n_step_compiles == 2, (n_step_compiles_first, n_step_compiles)
    print("loss jit/eager", float(loss_jit[0, 0]), float(loss_eager[0, 0]))
    print("mean jit/eager", np.asarray(mean_jit).ravel()[:3], np.asarray(mean_eager).ravel()[:3])
    print("step compiles:", n_step_compiles)
