# source: https://github.com/QuantEcon/lecture-python-programming/issues/529
#   (lectures/autodiff.md at commit 68e4fb821e3d1a9ce9d935ac28f81514963329cb, the lecture the
#   issue reports: "the same `key` is used for both `jax.random.uniform` and
#   `jax.random.split`")
# observed on jax 0.10.2 CPU: the simulated data draws x from `key` and then splits that same
#   consumed key for the noise; under jax.debug_key_reuse(True) the split raises
#   KeyReuseError at that line. The rest of the lecture runs correctly: jax.grad through a
#   Python `if x < 0` (grad alone, concrete primal), vmap of grad of jnp.interp, and a
#   Python while loop driving the gradient of a jitted loss.
# gap: other
# added: the __main__ block; the matplotlib plots and the sympy cell of the lecture are left
#   out (plots replaced by the evaluations they display).
import jax
import jax.numpy as jnp
import numpy as np


def f(x):
    "Original function."
    return np.exp(2 * x)

def f_prime(x):
    "True derivative."
    return 2 * np.exp(2 * x)

def Df(x, h=0.1):
    "Approximate derivative (finite difference)."
    return (f(x + h) - f(x))/h

x_grid = np.linspace(-2, 1, 200)
f_prime(x_grid), Df(x_grid)


def f(x):
    return jnp.sin(x) - 2 * jnp.cos(3 * x) * jnp.exp(- x**2)

f_prime = jax.grad(f)
x_grid = jnp.linspace(-5, 5, 100)
[f(x) for x in x_grid], [f_prime(x) for x in x_grid]


def f(x):
    return jnp.abs(x)

f_prime = jax.grad(f)
f_prime(0.0)


def f(x):
    def f1(x):
        for i in range(2):
            x *= 0.2 * x
        return x
    def f2(x):
        x = sum((x**i + i) for i in range(3))
        return x
    y = f1(x) if x < 0 else f2(x)
    return y

f_prime = jax.grad(f)
x_grid = jnp.linspace(-5, 5, 100)
[f(x) for x in x_grid], [f_prime(x) for x in x_grid]


n = 20
xp = jnp.linspace(-5, 5, n)
yp = jnp.cos(2 * xp)
f_prime = jax.grad(jnp.interp)
f_prime_vec = jax.vmap(f_prime, in_axes=(0, None, None))
f_prime_vec(x_grid, xp, yp)


def grad_descent(f,       # Function to be minimized
                 args,    # Extra arguments to the function
                 x0,      # Initial condition
                 λ=0.1,   # Initial learning rate
                 tol=1e-5, 
                 max_iter=1_000):
    """
    Minimize the function f via gradient descent, starting from guess x0.

    The learning rate is computed according to the Barzilai-Borwein method.
    
    """
    
    f_grad = jax.grad(f)
    x = jnp.array(x0)
    df = f_grad(x, args)
    ϵ = tol + 1
    i = 0
    while ϵ > tol and i < max_iter:
        new_x = x - λ * df
        new_df = f_grad(new_x, args)
        Δx = new_x - x
        Δdf = new_df - df
        λ = jnp.abs(Δx @ Δdf) / (Δdf @ Δdf)
        ϵ = jnp.max(jnp.abs(Δx))
        x, df = new_x, new_df
        i += 1
        
    return x


n = 100
key = jax.random.key(1234)
x = jax.random.uniform(key, (n,))

α, β, σ = 0.5, 1.0, 0.1  # Set the true intercept and slope.
key, subkey = jax.random.split(key)  # expect: JIT502
ϵ = jax.random.normal(subkey, (n,))

y = α * x + β + σ * ϵ

mx = x.mean()
my = y.mean()
α_hat = jnp.sum((x - mx) * (y - my)) / jnp.sum((x - mx)**2)
β_hat = my - α_hat * mx


@jax.jit
def loss(params, data):
    a, b = params
    x, y = data
    return jnp.sum((y - a * x - b)**2)

p0 = jnp.zeros(2)  # Initial guess for α, β
data = x, y
α_hat, β_hat = grad_descent(loss, data, p0)


@jax.jit
def loss(params, data):
    a, b, c = params
    x, y = data
    return jnp.sum((y - a * x**2 - b * x - c)**2)

p0 = jnp.zeros(3)
α_hat, β_hat, γ_hat = grad_descent(loss, data, p0)


def loss(params, data):
    x, y = data
    return jnp.sum((y - jnp.polyval(params, x))**2)

k = 4
p0 = jnp.zeros(k)
p_hat = grad_descent(loss, data, p0)


if __name__ == "__main__":
    import traceback

    try:
        with jax.debug_key_reuse(True):
            key = jax.random.key(1234)
            x = jax.random.uniform(key, (n,))
            key, subkey = jax.random.split(key)  # tolerate: JIT502
    except jax.errors.KeyReuseError as err:
        frames = [fr for fr in traceback.extract_tb(err.__traceback__) if fr.filename == __file__]
        reuse_line = frames[-1].lineno
    else:
        raise AssertionError("the consumed key was split without complaint")
    # observed: line 109 splits the key that uniform already consumed (KeyReuseError here,
    #   at the repetition of that line)
    assert reuse_line == 157, reuse_line
    # the gradient through the Python branch is right on both sides of 0 (grad alone)
    f_prime = jax.grad(f)
    assert abs(float(f_prime(-2.0)) - 0.032 * (-2.0) ** 3) < 1e-5
    assert abs(float(f_prime(2.0)) - 5.0) < 1e-5
    assert jnp.isfinite(p_hat).all()
