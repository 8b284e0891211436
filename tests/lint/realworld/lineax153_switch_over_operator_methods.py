# source: https://github.com/patrick-kidger/lineax/issues/153 (the reporter's snippet)
# observed on jax 0.10.2 CPU (lineax 0.1.1, equinox 0.13.8): lax.switch hashes the branch
#   callables it is given; each `M.mv` is an equinox bound method, a module holding the
#   operator and its matrix, and the module's __hash__ hashes that JAX array, so the switch
#   raises TypeError: unhashable type: 'jaxlib._jax.ArrayImpl'. Added: imports.
# gap: static-hashability
import jax
import jax.numpy as jnp
import numpy as np
import lineax as lx

Ms = [lx.MatrixLinearOperator(jnp.eye(5)), lx.MatrixLinearOperator(2*jnp.eye(5))]
funs = [M.mv for M in Ms]
jax.lax.switch(0, funs, np.random.random(5))  # expect: JIT302
