# source: https://github.com/QuantEcon/lecture-jax/blob/f25f07f9a201f2bf236716683163a4aa758886a8/lectures/autodiff.md
#   (QuantEcon's "Adventures with Autodiff" lecture: a Barzilai-Borwein gradient descent
#   driven by jax.grad, tested on a linear regression whose data the lecture simulates)
# observed on jax 0.10.2 CPU: the simulation draws x with jax.random.uniform(key, (n,))
#   and then splits that same, already consumed key to get the key for the noise ϵ; with
#   JAX's key-reuse checker on (jax.debug_key_reuse), replaying the two statements raises
#   KeyReuseError at the split. The gradient descent itself recovers the OLS estimates.
#   Left out: the plots and the later polynomial-regression section. Added: the
#   __main__ block.
# gap: other
import jax
import jax.numpy as jnp


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

α_hat, β_hat


@jax.jit
def loss(params, data):
    a, b = params
    x, y = data
    return jnp.sum((y - a * x - b)**2)


p0 = jnp.zeros(2)  # Initial guess for α, β
data = x, y
α_hat, β_hat = grad_descent(loss, data, p0)


if __name__ == "__main__":
    import jax.errors

    # observed: line 51 splits the key that jax.random.uniform consumed on the line
    #   before: with the key-reuse checker on, replaying the two statements raises
    #   KeyReuseError at the split
    with jax.debug_key_reuse(True):
        key = jax.random.key(1234)
        x2 = jax.random.uniform(key, (n,))
        try:
            key, subkey = jax.random.split(key)  # tolerate: JIT502
        except jax.errors.KeyReuseError:
            reused = True
        else:
            reused = False
    assert reused
    assert bool((x2 == x).all())
    ols_α = jnp.sum((x - mx) * (y - my)) / jnp.sum((x - mx)**2)
    assert jnp.allclose(jnp.array([α_hat, β_hat]), jnp.array([ols_α, my - ols_α * mx]), atol=1e-3)
