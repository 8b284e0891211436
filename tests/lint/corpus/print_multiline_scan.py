import jax
import jax.numpy as jnp


def simulate(x0, forces):
    def body(x, f):
        x = x + 0.01 * f
        print(  # expect: JIT203
            "position",
            x,
        )
        return x, x

    return jax.lax.scan(body, x0, forces)


def report(traj):
    print(
        "final position",
        traj[-1],
    )
