# source: https://github.com/tahashieenavaz/jax-introduction/blob/ac7fc01c95b1836b2ab981077b981c3f1cbdb246/linear-regression.py
#   (a learner's "JAX introduction" repository: linear regression fitted with jax.grad)
# observed on jax 0.10.2 CPU: the noise added to y is drawn from `key`, the key that already
#   drew x; jax.random.normal(key, (100,)) gives the same 100 numbers as
#   jax.random.normal(key, (100, 1)), so the "noise" is x[:, 0] itself and y = 3x - 3.5:
#   gradient descent fits w = 3.0, not the intended slope a = 2.0 (the fit is exact, with zero
#   residual). The __main__ block is added: it checks the noise against x and the fitted
#   parameters.
# gap: other
import jax
import jax.numpy as jnp
from jax import grad
from dataclasses import dataclass

@dataclass
class Configuration: 
    lr = 0.1
    epochs = 200

def predict(params, x):
    w,b = params
    return w * x + b

def mse(params, x, y):
    preds = predict(params, x)
    return jnp.mean((preds - y) ** 2)


a = 2.0
b = -3.5

key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (100, 1))
y = a * x[:, 0] + b + jax.random.normal(key, (100,))  # expect: JIT502

params = [jnp.array(0.0), jnp.array(0.0)]

for epoch in range(Configuration.epochs):
    gradients = grad(mse)(params, x[:, 0], y)
    params = [parameter - Configuration.lr * gradient for parameter, gradient in zip(params, gradients)]

if __name__ == "__main__":
    noise = y - (a * x[:, 0] + b)
    # observed: line 34 draws the noise from the key that drew x: the noise is x[:, 0]
    assert jnp.allclose(noise, x[:, 0], atol=1e-5)
    w, b_fit = params
    print("fitted w, b:", w, b_fit)
    assert abs(float(w) - 3.0) < 1e-3 and abs(float(b_fit) + 3.5) < 1e-3
