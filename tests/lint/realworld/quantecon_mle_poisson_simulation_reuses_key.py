# source: https://github.com/QuantEcon/lecture-jax/blob/f25f07f9a201f2bf236716683163a4aa758886a8/lectures/mle.md
#   (QuantEcon's "Maximum Likelihood Estimation" lecture in JAX: a jitted Poisson
#   log-likelihood, its gradient and Hessian by jax.grad/jax.jacfwd, and a Newton-Raphson
#   loop; the exercise simulates regressors and Poisson outcomes and re-estimates β)
# observed on jax 0.10.2 CPU: the simulation draws the regressor x with
#   jax.random.normal(key, shape) and then the outcomes y with jax.random.poisson(key, ...)
#   from the same key, never split; JAX's key-reuse checker (jax.debug_key_reuse) raises
#   KeyReuseError at the Poisson draw when the two draws are replayed. The Newton-Raphson
#   estimates themselves run. Left out: the plot of the toy likelihood, the statsmodels
#   comparison (statsmodels is not installed) and `!nvidia-smi`. Added: the __main__ block.
# gap: other
from collections import namedtuple
import jax.numpy as jnp
import jax

jax.config.update("jax_enable_x64", True)


@jax.jit
def logL(β):
    return -(β - 10) ** 2 - 10


dlogL = jax.vmap(jax.grad(logL))

RegressionModel = namedtuple('RegressionModel', ['X', 'y'])

def create_regression_model(X, y):
    n, k = X.shape
    # Reshape y as a n_by_1 column vector
    y = y.reshape(n, 1)
    X, y = jax.device_put((X, y))
    return RegressionModel(X=X, y=y)


@jax.jit
def _factorial(n):
    return jax.lax.exp(jax.lax.lgamma(n + 1.0)).astype(int)

jax_factorial = jax.vmap(_factorial)


@jax.jit
def poisson_logL(β, model):
    y = model.y
    μ = jnp.exp(model.X @ β)
    return jnp.sum(model.y * jnp.log(μ) - μ - jnp.log(jax_factorial(y)))


G_poisson_logL = jax.grad(poisson_logL)
H_poisson_logL = jax.jacfwd(G_poisson_logL)


def newton_raphson(model, β, tol=1e-3, max_iter=100, display=True):

    i = 0
    error = 100  # Initial error value

    # Print header of output
    if display:
        header = f'{"Iteration_k":<13}{"Log-likelihood":<16}{"θ":<60}'
        print(header)
        print("-" * len(header))

    # While loop runs while any value in error is greater
    # than the tolerance until max iterations are reached
    while jnp.any(error > tol) and i < max_iter:
        H, G = jnp.squeeze(H_poisson_logL(β, model)), G_poisson_logL(β, model)
        β_new = β - (jnp.dot(jnp.linalg.inv(H), G))
        error = jnp.abs(β_new - β)
        β = β_new

        if display:
            β_list = [f'{t:.3}' for t in list(β.flatten())]
            update = f'{i:<13}{poisson_logL(β, model):<16.8}{β_list}'
            print(update)

        i += 1

    print(f'Number of iterations: {i}')
    print(f'β_hat = {β.flatten()}')

    return β


X = jnp.array([[1, 2, 5],
               [1, 1, 3],
               [1, 4, 2],
               [1, 5, 2],
               [1, 3, 1]])

y = jnp.array([1, 0, 1, 1, 0])

# Take a guess at initial βs
init_β = jnp.array([0.1, 0.1, 0.1]).reshape(X.shape[1], 1)

# Create an object with Poisson model values
poi = create_regression_model(X, y)

# Use newton_raphson to find the MLE
β_hat = newton_raphson(poi, init_β, display=True)

G_poisson_logL(β_hat, poi)

β_0 = -2.5
β_1 = 0.25
β_2 = 0.5

seed = 32
shape = (500_000, 1)
key = jax.random.key(seed)
x = jax.random.normal(key, shape)

λ = jnp.exp(β_0 + β_1 * x + β_2 * x**2)

y = jax.random.poisson(key, λ, shape)  # expect: JIT502

X = jnp.hstack((jnp.ones(shape), x, x**2))

# Take a guess at initial βs
init_β = jnp.array([0.1, 0.1, 0.1]).reshape(X.shape[1], 1)

# Create an object with Poisson model values
poi = create_regression_model(X, y)

# Use newton_raphson to find the MLE
β_hat = newton_raphson(poi, init_β, tol=1e-5, display=True)


if __name__ == "__main__":
    import jax.errors

    # observed: line 116 draws the outcomes from the key that already drew x: with JAX's
    #   key-reuse checker on, replaying the two draws raises KeyReuseError at the second
    with jax.debug_key_reuse(True):
        key = jax.random.key(seed)
        x2 = jax.random.normal(key, shape)
        try:
            jax.random.poisson(key, λ, shape)  # tolerate: JIT502
        except jax.errors.KeyReuseError:
            reused = True
        else:
            reused = False
    assert reused
    assert bool((x2 == x).all())
    # the estimates themselves are computed
    assert β_hat.shape == (3, 1) and bool(jnp.all(jnp.isfinite(β_hat)))
    assert jnp.allclose(β_hat.ravel(), jnp.array([β_0, β_1, β_2]), atol=0.02)
