# source: https://github.com/jax-ml/jax/issues/5454
# observed on jax 0.10.2 CPU: innerRange(3) and innerRange(4) run eagerly; under vmap the
#   bound `i` is a batched tracer and jnp.arange(i) raises ConcretizationTypeError, since
#   each batch element would need an array of a different length.
# gap: other
from jax import vmap
import jax.numpy as jnp
import numpy as np
import jax
from jax import grad,jit

def testSimpleRangeInVMap( parts ):
    def innerRange( i ):
        inds = jnp.arange(i)  # expect: JIT404
        selected = parts[inds]
        p = jnp.sum( selected, axis= 0)
        return p

    print( "innerRange(3)")
    print( innerRange(3) )

    print("innerRange(4)")
    print( innerRange(4) )

    bounds = jnp.array([3, 4], dtype="int32")
    res = vmap(innerRange)(bounds)

    return res

parts = jnp.array( np.random.randn(40,2) )
print( testSimpleRangeInVMap( parts ) )
