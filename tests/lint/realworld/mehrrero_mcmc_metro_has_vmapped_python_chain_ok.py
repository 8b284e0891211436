# source: https://github.com/mehrrero/MCMC/blob/4acc381dc01e75224158527073c449bbb6e15139/MCsampler/__init__.py
#   (a user's Metropolis-Hastings package: Metro_Has.sample vmaps markov_chain, a Python
#   loop of burning + N steps with branches on the static self.D, over Nc chains; the
#   targets P and F are the jitted densities of the repository's demo.ipynb)
# observed on jax 0.10.2 CPU: runs clean; under vmap only x0 and the keys are batched,
#   `if self.D == 1` and the loops over range(burning) and range(N) are Python values,
#   the accepted list is a local one, and the boolean-mask filtering, `len(u)` and
#   `x0.item()` run outside any transform. Changed: `from jax.lib import xla_bridge`
#   (gone from jax, unused) is dropped. Added: the __main__ block (the demo's targets,
#   its first 1-d P renamed P1; 200 samples and burning=5 instead of 5000 and 50).
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
from jax import jit
from jax.lax import scan
from jax import random
import timeit


@jit
def normal(xp,x):
    '''
        Evaluates a normal distribution with sigma =1 and centered at xp.

        Parameters:
            xp (float): Center of the normal distribution.
            x (float): Point where to evaluate the distribution.

        Returns:
            n (float): Probability of point x

    '''
    
    return  1/jnp.sqrt(2*jnp.pi)*jnp.exp(-1/2*(x-xp)**2)


def multi_normal(xp, x, D):
    '''
        Evaluates a multivariate normal distribution with sigma = 1/2 * Identity and centered at xp.

        Parameters:
            xp (array): Center of the distribution.
            x (array): Point where to evaluate the distribution.

        Returns:
            n (float): Probability of point x

    '''

    cov = 1/2*jax.numpy.identity(D)
    exponent = -1/2 * jnp.matmul(jnp.matmul(jnp.transpose((xp - x)), cov), (xp - x))
    return 1/(2 * jnp.pi) ** (D / 2) * jnp.exp(exponent)



class Metro_Has():
    '''
        Implementation of the Metropolis-Hastings algorithm to sample from a D-dimensional distribution.

        Parameters:
            P (function): Distribution to be sampled.
            D (int): Dimensionality of base space.
        
    '''

    def __init__(self, P, D):
        super(Metro_Has, self).__init__()
        self.P = P
        self.key = random.PRNGKey(0)
        self.D = D

    def draw_sample(self,x, key):
        '''
            Draws a sample from the proposal distribution, chosen to be a (multivariate) normal distribution with unit covariance.

            Parameters:
                x (array): Current state of the Markov chain.
                key (array): PRNG key for the random generators.

            Returns:
                xp (array): Sample from the proposal distribution.

        '''
        
        if self.D == 1:
            xp = jax.random.normal(key)

        if self.D >1:
            xp = jax.random.multivariate_normal(key, x, jax.numpy.identity(self.D))
        return xp

    
    def Q(self, xp, x):
        '''
            Probability function of the proposal distribution, chosen to be a (multivariate) normal distribution with unit covariance.
        
            Parameters:
                xp (array): New proposed state of the Markov chain.
                x (array): Current state of the Markov chain.

            Returns:
                q (float): Probability of Q(xp|x).
        '''
        
        if self.D == 1:
            q = normal(xp,x)
            
        elif self.D >1:
            q = multi_normal(xp,x, self.D)

        return q
        
    
    def acceptance(self, x, xp, key):
        '''
            Checks whether we accept or not the new proposed state in the Markov chain.

            Parameters:
                x (array): Current state of the Markov chain.
                xp (array): New proposed state of the Markov chain.
                key (array): PRNG key for the random generators.
                
            Returns:
                xp (array): Returns the value of xp when it is accepted. Otherwise it returns nan.
            
        '''
        alpha = [1]
        alpha.append(self.P(xp)/self.P(x) * self.Q(x,xp)/self.Q(xp,x) )
        a = jnp.amin(jnp.array(alpha))
        u = random.uniform(key)
        xp = jnp.where(u > a, jnp.nan, xp)
        
        return xp

    
    
    def step(self, x0, key1, key2):
        '''
            Performs an attemp to a step in the Markov chain.
            
            Parameters:
                x0 (array): Current state of the Markov chain.
                key1 (array): PRNG key for the random generators.
                key2 (array): PRNG key for the random generators.

            Returns:
                xp (array): Returns the value of xp when it is accepted. Otherwise it returns nan.
        '''
        

        xp = self.draw_sample(x0, key1)
        
        return self.acceptance(x0, xp, key2)


    def markov_chain(self, x0, key, N, burning = 50):
        '''
            Performs N attempts of moving along the Markov chain, with N the lenght of keys.

            Parameters:
                x0 (array): Current state of the Markov chain.
                keys (array): PRNG keys for the random generators.
                burning_keys (array): PRNG keys for the random generators used during the burning period.
                
            Returns:
                x_ac (array): Accepted values.
                
        '''
        
        
        x_ac = []

        for i in range(burning):
            key, subkey1, subkey2 = random.split(key, 3)
            x_n = self.step(x0, subkey1, subkey2)
            x0 = jnp.where(~jnp.any(jnp.isnan(x_n)), x_n, x0)
        
        for i in range(N):
            key, subkey1, subkey2 = random.split(key, 3)
            x_n = self.step(x0,subkey1, subkey2) 
            x0 = jnp.where(~jnp.any(jnp.isnan(x_n)), x_n, x0)
            x_ac.append(x_n)

        x_ac = jnp.stack(x_ac)

        return x_ac


    
    def sample(self, x0, Nt, burning = 50):
        '''
            Returns ~Nt samples from the distribution.

            Parameters:
                x0 (array): Initial state.
                Nt (int): Approximate number of samples to be retrieved from the distribution. The sampling will always return a number close to but larger than Nt.
                burn (int, optional): Number of steps in the burning stage. The default value is 50.

            Returns:
                u (array): ~Nt samples of the target distribution.
        '''
        
        Nt = int(Nt)
        N = 20

        Nc = Nt//N


        start = timeit.default_timer()
        u = jnp.array([])
        
        while len(u) < self.D*Nt:
            keys = random.split(self.key, Nc + 1)
            self.key, *keys = keys
            keys = jnp.array(keys)
            
            _x0 = jnp.expand_dims(x0,0).repeat(Nc, axis=0)
            u_p = jax.vmap(lambda x, y: self.markov_chain(x, y, N, burning = burning))(_x0,keys)
            u_p = u_p[~jnp.isnan(u_p)]
            u = jnp.concatenate((u,u_p))
            x0 = u[-self.D:]
            if self.D == 1:
                x0 = x0.item()

        stop = timeit.default_timer()
        dt = (stop - start) 
        
        if self.D>1:
            u = u.reshape(u.shape[0]//self.D,self.D)
        

        print(f'{len(u)} points accepted in {dt} s.')
        return u







if __name__ == "__main__":
    @jit
    def P(x):

        D=x.shape[0]
        cov = 0.1*jnp.array([[1,0],[0,1]])
        detcov = jnp.linalg.det(cov)
        invcov = jnp.linalg.inv(cov)
        mu = jnp.array([0,0])

        expo = jnp.matmul(jnp.transpose(x-mu), jnp.matmul(invcov,(x-mu)  ) )
        
        p = 1/(2*jnp.pi)**(D/2) * 1/jnp.sqrt(detcov) * jnp.exp(-1/2*expo)
        
        return p

    x0 = jnp.array([1,3])
    sampler_p = Metro_Has(P,x0.shape[0])
    u_p = sampler_p.sample(x0, 200, burning = 5)
    assert u_p.ndim == 2 and u_p.shape[1] == 2 and u_p.shape[0] >= 200
    assert bool(jnp.all(jnp.isfinite(u_p)))

    @jit
    def F(x):

        _x, _y = x
       
        d1 = jnp.exp(-(_x-1)**2/(2*0.1))
        d2 = jnp.exp(-_y**2)*(2+jnp.sin(5*_y)+jnp.sin(2*_y))
        
        return d1*d2

    sampler_d = Metro_Has(F,x0.shape[0])
    u_d = sampler_d.sample(x0, 200, burning = 5)
    assert u_d.shape[1] == 2 and u_d.shape[0] >= 200

    @jit
    def P1(x):
        return jnp.exp(-(x-1)**2/(2*0.1))

    sampler = Metro_Has(P1,1)
    v_n = sampler.sample(2, 200, burning = 5)
    assert v_n.ndim == 1 and v_n.shape[0] >= 200
