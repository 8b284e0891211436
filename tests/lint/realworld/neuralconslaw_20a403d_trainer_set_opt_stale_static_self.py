# source: https://github.com/facebookresearch/neural-conservation-law/blob/20a403d00affad905d1c47b041bc60d0ff0ea360/jax/training.py
#   (the JAX code of "Neural Conservation Laws": a Trainer class whose train_step is jitted
#   with a static self and reads self.opt, self.loss and self.smp; set_opt is there "to
#   change lr, hyper parameters etc" between calls of trainModel)
# observed on jax 0.10.2 CPU: self is static and hashed by identity, so after the first
#   train_step the compiled step keeps the optimizer it was traced with: set_opt(optax.sgd(0.0))
#   leaves the jitted step taking the old sgd(0.1) steps (parameters keep moving), while the
#   same step on a fresh Trainer with sgd(0.0) leaves them unchanged.
# gap: stale-state-attributes
# added: Sampler and ToriSampler from jax/sampling.py of the same commit (trimmed to the
#   methods train_step calls), a stand-in loss object with lossBatch (a least-squares fit
#   of a linear model on the sampled points; the repo's losses.py needs its PDE classes),
#   and the __main__ block. trainModel is kept as written, tqdm included.
import jax.numpy as np
from jax import grad, vmap, value_and_grad,jit
from jax import random
import optax
from functools import partial
from tqdm import tqdm

def printStats():
    pass

class Trainer():

    def __init__(self, opt, loss_obj, smp):

        self.opt = opt
        self.loss = loss_obj
        self.smp = smp
        self.log_rate  = 100 #steps to avg/print loss

    #set the optimizer 
    #used to change lr, hyper parameters etc
    def set_opt(self,opt):
        self.opt = opt

    @partial(jit,static_argnums=(0,))
    def train_step(self, params, key, opt_st):
        vg_loss = jit(value_and_grad(self.loss.lossBatch))
        smp = self.smp
        keys = random.split(key,5)
        key = keys[0]

        t = smp.smpTime(keys[1])
        dom_pts = smp.smpDom(keys[2],t)
        bd_pts = smp.smpBd(keys[3],t)
        init_pts = smp.smpInit(keys[4])

        lval, lgrad = vg_loss(params,dom_pts,bd_pts,init_pts)
        update, opt_st = self.opt.update(lgrad,opt_st,params)  # expect: JIT201
        params = optax.apply_updates(params, update)
        return params, opt_st, lval
    

    #trains the model given in the loss obj
    
    def trainModel(self, params, key, opt_st,stats=[],steps=int(1e4),hyper_debug=False):

        run_loss = 0
        bar = tqdm(range(steps))
        for i in bar:
            key,_ = random.split(key,2)  # tolerate: JIT502
            params, opt_st, lval = self.train_step(params, key, opt_st)
            run_loss += lval.item() / self.log_rate
            if hyper_debug:
                print(i,lval.item())
            if not ((i + 1) % self.log_rate):
                #print("-"*10)
                #print("Steps ", i, "avg_loss", run_loss)
                bar.set_description("avg_loss:{:f}".format(run_loss))
                stats.append([run_loss])
                run_loss = 0
                #_ = self.loss.lossBatch(params,dom_pts,bd_pts,init_pts,debug=True) #requires a recomputation :(
        return params, opt_st, stats


#base class for samplers (to be extended by subclasses for specific domains)
class Sampler(object):

    #delta is the fuzzing timestep for the initial condition
    def __init__(self,delta=1e-2):
        self.delta = delta
        self.T = 1
        self.bsize = 100

    #samples time
    #defaults to uniform but can be overriden
    def smpTime(self,key,N=None):
        if N is None:
            N = self.N
        return random.uniform(key,shape=(N,1))*self.T

    #fuzzes the initial condition by sampling at different time 
    def smpInit(self,key,N=None):
        if N is None:
            N = self.N
        keys = random.split(key,3)
        t = random.uniform(keys[0],shape=(N,1))*self.delta
        return self.smpDom(keys[1],t)


#sampler class for the periodic square (flat 2-Tori)
class ToriSampler(Sampler):

    #T is the end time for the domain
    #N is the default batch size
    def __init__(self,T=1,N=100):
        super().__init__()
        self.T = T
        self.N = N
    
    #samples from the interior of the periodic square
    def smpDom(self,key,t,N=None):
        if N is None:
            N = self.N
        keys = random.split(key,2)
        
        pts = random.uniform(keys[0],shape=(N,2))

        return np.concatenate([t,pts],axis=1)

    #no boundary conditions since we are on a periodic domain 

    def smpBd(self,key,t,N=None):
        if N is None:
            N = self.N
        return np.zeros(shape=(N,2))


class LinearFitLoss:  # stand-in for the repo's PDE losses
    def lossBatch(self, params, dom_pts, bd_pts, init_pts):
        target = np.sin(dom_pts[:, 1]) + dom_pts[:, 0]
        pred = dom_pts @ params["w"] + params["b"]
        return np.mean((pred - target) ** 2)


if __name__ == "__main__":
    params = {"w": np.zeros(3), "b": np.zeros(())}
    opt = optax.sgd(0.1)
    opt_st = opt.init(params)
    trainer = Trainer(opt, LinearFitLoss(), ToriSampler(T=0.5, N=64))
    params, opt_st, stats = trainer.trainModel(params, random.PRNGKey(0), opt_st, stats=[], steps=5)

    # the user lowers the learning rate to zero: no step should move the parameters any more
    frozen = optax.sgd(0.0)
    trainer.set_opt(frozen)
    opt_st = frozen.init(params)
    stepped, _, _ = trainer.train_step(params, random.PRNGKey(1), opt_st)
    fresh, _, _ = Trainer(frozen, LinearFitLoss(), ToriSampler(T=0.5, N=64)).train_step(params, random.PRNGKey(1), opt_st)
    # observed: line 51 read self.opt (sgd(0.1)) when train_step was traced; after set_opt the
    #   compiled step still applies it, while a fresh Trainer with sgd(0.0) leaves params as they are
    assert float(np.abs(fresh["w"] - params["w"]).max()) == 0.0
    assert float(np.abs(stepped["w"] - params["w"]).max()) > 1e-4
