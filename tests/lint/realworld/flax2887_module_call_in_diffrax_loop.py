# source: https://github.com/google/flax/issues/2887
# observed on jax 0.10.2 CPU: node.init raises UnexpectedTracerError: the Dense kernel created by the call on line 21, inside diffrax's traced vector-field check, is stored in the Flax scope outside that trace and leaks (reported at the diffeqsolve call on line 24)
# observed: line 21 the parameter created here while diffrax traces the vector field is kept in the outer Flax scope: UnexpectedTracerError whose leak origin is this line
# gap: other
# (the reporter's MWE as posted; the `if __name__ == "__main__":` block that catches the error and checks where the leaked value was created is added)
import flax.linen as nn
import jax.numpy as jnp
import jax
import diffrax as dfx
from typing import Any

class NeuralODE(nn.Module):
    hidden_dims : int = (4,)
    solver: Any = dfx.Euler()

    def setup(self):
        self.ode_term = nn.Dense(features=1)

    def __call__(self, x):
        def _odefun(t, y, args):
            return self.ode_term(y)  # expect: JIT202

        term = dfx.ODETerm(_odefun)
        solution = dfx.diffeqsolve(term, self.solver, t0=0, t1=1, dt0=0.1, y0=x)
        return solution

if __name__ == "__main__":
    import os

    node = NeuralODE()

    x = jnp.ones(1)
    key = jax.random.PRNGKey(1)
    try:
        pars = node.init(key, x)
    except jax.errors.UnexpectedTracerError as e:
        msg = str(e)
    else:
        raise SystemExit("expected UnexpectedTracerError")
    here = os.path.basename(__file__)
    assert f"{here}:21:" in msg, msg
    print("leaked tracer created on line 21:", msg.splitlines()[0])
