# source: https://github.com/jax-ml/jax/issues/1571 (the example in the description)
# observed on jax 0.10.2 CPU: runs clean: jnp.linspace is differentiable in its endpoints
#   now, so grad(testlinspace) no longer raises; both gradients are finite.
# gap: exemption-vs-JAX
import jax.numpy as jnp
import jax 

def testlinspace(x, *args): #does not work 
    out = jnp.linspace(x[0],x[1],50) #linspace depends on parameters 
    
    out = x[2]*jnp.square(out)
    out = jnp.sum(out)
    
    return out 

def testlinspace2(x, *args): #works 
    out = jnp.linspace(1.,50.,50) #linspace is just some array of numbers 
    
    out = x[2]*jnp.square(out)+x[0]*x[1]
    out = jnp.sum(out)
    
    return out 

x = [2.,3.,1.5]
testobj = testlinspace(x)
testgrad = jax.grad(testlinspace)
testobj2 = testlinspace2(x)
testgrad2 = jax.grad(testlinspace2)

print(testgrad(x)) #throws exception, note gradient using finite differences is DeviceArray([174.48979293, 200.51020897, 316.83673001])
print(testgrad2(x)) #works, gives DeviceArray([  149.99968698,    99.99930626, 42924.99943404])

if __name__ == "__main__":
    g = jax.jit(testgrad)(x)
    assert abs(float(g[0]) - 174.49) < 0.1 and abs(float(g[1]) - 200.51) < 0.1, g
