# source: https://coderapp.vercel.app/answer/74450205 (Stack Overflow question 74450205 and
#   its accepted answer: "I'm in shock with these values ... What is happening with Jax
#   results?")
# observed on jax 0.10.2 CPU: runs clean, under jax.jit too: the Jacobian is correct. The
#   function takes degrees, so its derivatives are per degree; multiplied by 180/pi (the
#   answer) they match the user's sympy value ~0.752. Added: the __main__ block, which
#   jits the Jacobian and compares it with the eager one and with the answer's conversion.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp

def myf(arr, phi_0, phi_1, phi_2, lambda_0, R):
    arr = jnp.deg2rad(arr)
    phi_0 = jnp.deg2rad(phi_0)
    phi_1 = jnp.deg2rad(phi_1)
    phi_2 = jnp.deg2rad(phi_2)
    lambda_0 = jnp.deg2rad(lambda_0)
    n = jnp.sin(phi_1)
    F = 2.0
    rho_0 = 1.0
    rho = R*F*(1/jnp.tan(jnp.pi/4 + arr[1]/2))**n
    x_L = rho*jnp.sin(n*(arr[0] - lambda_0))
    y_L = rho_0 - rho*jnp.cos(n*(arr[0] - lambda_0))
    return jnp.array([x_L,y_L])

arr = jnp.array([-18.1, 29.9])
jax.jacobian(myf)(arr, 29.5, 29.5, 29.5, -17.0, R=1)

result = jax.jacobian(myf)(arr, 29.5, 29.5, 29.5, -17.0, R=1)
print(result * 180 / jnp.pi)

if __name__ == "__main__":
    jitted = jax.jit(jax.jacobian(myf))(arr, 29.5, 29.5, 29.5, -17.0, R=1)
    assert jnp.allclose(jitted, result, rtol=1e-5)
    assert abs(float(jitted[0, 0] * 180 / jnp.pi) - 0.752) < 1e-3
