# source: https://github.com/UW-ERSL/AuTO/blob/2f017801af71f7c9183374c1d613b03c23ad44a6/compliance.ipynb
#   (AuTO, "A framework for Automatic differentiation in Topology Optimization" (UW-Madison ERSL):
#   the compliance-minimization notebook's ComplianceMinimizer, with the Mesher, computeFilter and
#   applySensitivityFilter it imports from models/utilfuncs.py and the loop of models/mmaOptimize.py's
#   optimize(), same commit)
# observed on jax 0.10.2 CPU: computeConstraints, which optimize() calls once per design iteration,
#   defines a new computeGlobalVolumeConstraint closure under @jit on every call, so each iteration
#   traces and compiles it again (two programs per call under value_and_grad, its linearized
#   forward and its transpose): over six iterations the jitted objective compiles once and the
#   volume constraint twelve times.
# gap: per-call-recompile
# added/changed: `sym_pos = True` (removed from jax.scipy.linalg.solve) is spelled `assume_a='pos'`;
#   the notebook's git-clone cell and matplotlib plotting are dropped; optimize()'s MMA subproblem
#   (the MMA class of utilfuncs, ~300 lines) is replaced by the repository's own optimality-criteria
#   update `oc` from models/microstrutilfuncs.py; the mesh is 12x6 instead of 60x30 and
#   optimizationParams ask for 6 iterations; the __main__ block is added.
import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, value_and_grad
import time


#--------------------------#
class Mesher:
    def getMeshStructure(self, mesh):
        # returns edofMat: array of size (numElemsX8) with
        # the global dof of each elem
        # idx: A tuple informing the position for assembly of computed entries
        edofMat=np.zeros((mesh['nelx']*mesh['nely'],8),dtype=int)
        for elx in range(mesh['nelx']):
            for ely in range(mesh['nely']):
                el = ely+elx*mesh['nely']
                n1=(mesh['nely']+1)*elx+ely
                n2=(mesh['nely']+1)*(elx+1)+ely
                edofMat[el,:]=np.array([2*n1+2, 2*n1+3, 2*n2+2,\
                                2*n2+3,2*n2, 2*n2+1, 2*n1, 2*n1+1]);
        iK = tuple(np.kron(edofMat,np.ones((8,1))).flatten().astype(int))
        jK = tuple(np.kron(edofMat,np.ones((1,8))).flatten().astype(int))
        idx = (iK,jK)
        return edofMat, idx;

    # with the material defined, we can now calculate the base
    # constitutive matrix
    def getK0(self, matProp):
        # the base constitutive matrix assumes unit
        #area element with E = 1. and nu prescribed.
        # the material is also assumed to be isotropic.
        # returns a matrix of size (8X8)
        E = 1.
        nu = matProp['nu'];
        k = np.array([1/2-nu/6,1/8+nu/8,-1/4-nu/12,-1/8+3*nu/8,\
                       -1/4+nu/12,-1/8-nu/8,nu/6,1/8-3*nu/8])
        KE = \
        E/(1-nu**2)*np.array([ [k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]],
        [k[1], k[0], k[7], k[6], k[5], k[4], k[3], k[2]],
        [k[2], k[7], k[0], k[5], k[6], k[3], k[4], k[1]],
        [k[3], k[6], k[5], k[0], k[7], k[2], k[1], k[4]],
        [k[4], k[5], k[6], k[7], k[0], k[1], k[2], k[3]],
        [k[5], k[4], k[3], k[2], k[1], k[0], k[7], k[6]],
        [k[6], k[3], k[4], k[1], k[2], k[7], k[0], k[5]],
        [k[7], k[2], k[1], k[4], k[3], k[6], k[5], k[0]] ]);
        return KE;
#--------------------------#
def computeFilter(mesh, rmin):
    nelx, nely = mesh['nelx'], mesh['nely']
    H = np.zeros((nelx*nely,nelx*nely));

    for i1 in range(nelx):
        for j1 in range(nely):
            e1 = (i1)*nely+j1;
            imin = max(i1-(np.ceil(rmin)-1),0.);
            imax = min(i1+(np.ceil(rmin)),nelx);
            for i2 in range(int(imin), int(imax)):
                jmin = max(j1-(np.ceil(rmin)-1),0.);
                jmax = min(j1+(np.ceil(rmin)),nely);
                for j2 in range(int(jmin), int(jmax)):
                    e2 = i2*nely+j2;
                    H[e1, e2] = max(0.,rmin-\
                                       np.sqrt((i1-i2)**2+(j1-j2)**2));

    Hs = np.sum(H,1);
    return H, Hs;
#--------------------------#
def applySensitivityFilter(ft, x, dc, dv):
    if (ft['type'] == 1):
        dc = np.matmul(ft['H'],\
                         np.multiply(x, dc)/ft['Hs']/np.maximum(1e-3,x));
    elif (ft['type'] == 2):
        dc = np.matmul(ft['H'], (dc/ft['Hs']));
        dv = np.matmul(ft['H'], (dv/ft['Hs']));
    return dc, dv;
#--------------------------#
def oc(rho, dc, dv, ft, vf):
    l1 = 0;
    l2 = 1e9;
    x = rho.copy();
    move = 0.2;
    while (l2-l1 > 1e-4):
        lmid = 0.5*(l2+l1);
        dr = np.abs(-dc/dv/lmid);

        xnew = np.maximum(0,np.maximum(x-move,\
                        np.minimum(1,np.minimum(\
                        x+move,x*np.sqrt(dr)))));
        if ft['type'] == 1:
            rho = xnew;
        elif ft['type'] == 2:
            rho = np.matmul(ft['H'],xnew)/ft['Hs'];
        if np.mean(rho) > vf:
            l1 = lmid;
        else:
            l2 = lmid;

    change =np.max(np.abs(xnew-x));
    return rho, change;
#--------------------------#
def optimize(mesh, optimizationParams, ft, \
             objectiveHandle, consHandle, numConstraints):
    rho = np.ones((mesh['nelx']*mesh['nely']));
    loop = 0;
    change = 1.;
    t0 = time.perf_counter();

    while( (change > optimizationParams['relTol']) \
           and (loop < optimizationParams['maxIters'])\
           or (loop < optimizationParams['minIters'])):
        loop = loop + 1;

        J, dJ = objectiveHandle(rho);

        vc, dvc = consHandle(rho, loop);

        dJ, dvc = applySensitivityFilter(ft, rho, dJ, dvc)

        # stand-in for the MMA subproblem: the repository's OC update
        rho, change = oc(rho, np.asarray(dJ), np.asarray(dvc).reshape(-1), ft, \
                         globalVolumeConstraint['vf'])

        status = 'Iter {:d}; J {:.2F}; vf {:.2F}'.\
                format(loop, J, jnp.mean(rho));
        print(status)
    totTime = time.perf_counter() - t0;

    print('total time(s): ', totTime);
    return rho;


nelx, nely = 12, 6
elemSize = np.array([1., 1.])
mesh = {'nelx':nelx, 'nely':nely, 'elemSize':elemSize,\
        'ndof':2*(nelx+1)*(nely+1), 'numElems':nelx*nely}

material = {'Emax':1., 'Emin':1e-3, 'nu':0.3, 'penal':3.}

filterRadius = 1.5
H, Hs = computeFilter(mesh, filterRadius)
ft = {'type':1, 'H':H, 'Hs':Hs}

# tip cantilever
force = np.zeros((mesh['ndof'],1))
dofs=np.arange(mesh['ndof'])
fixed = dofs[0:2*(nely+1):1]
free = jnp.setdiff1d(np.arange(mesh['ndof']),fixed)
force[2*(nelx+1)*(nely+1)-2*nely+1, 0 ] = -1
symXAxis = False
symYAxis = False
bc = {'force':force, 'fixed':fixed,'free':free,\
          'symXAxis':symXAxis, 'symYAxis':symYAxis}

globalVolumeConstraint = {'isOn':True, 'vf':0.5}

optimizationParams = {'maxIters':6,'minIters':6,'relTol':0.05}
projection = {'isOn':False, 'beta':4, 'c0':0.5}


class ComplianceMinimizer:
    def __init__(self, mesh, bc, material, \
                 globalvolCons, projection):
        self.mesh = mesh
        self.material = material
        self.bc = bc
        M = Mesher()
        self.edofMat, self.idx = M.getMeshStructure(mesh)
        self.K0 = M.getK0(self.material)
        self.globalVolumeConstraint = globalvolCons
        self.objectiveHandle = jit(value_and_grad(self. computeCompliance))
        
        self.consHandle = self.computeConstraints
        self.numConstraints = 1
        self.projection = projection
    #-----------------------#
    # Code snippet 2.1
    def computeCompliance(self, rho):
        #-----------------------#
        @jit
        # Code snippet 2.9
        def projectionFilter(rho):
            if(self.projection['isOn']):
                v1 = np.tanh(self.projection['c0']*self.projection['beta'])
                nm = v1 + jnp.tanh(self.projection['beta']*(rho-self.projection['c0']))
                dnm = v1 + jnp.tanh(self.projection['beta']*(1.-self.projection['c0']))
                return nm/dnm
            else:
                return rho
        #-----------------------#
        @jit
        # Code snippet 2.2
        def materialModel(rho):
            E = self.material['Emin'] + \
                (self.material['Emax']-self.material['Emin'])*\
                                (rho+0.01)**self.material['penal']
            return E
        #-----------------------#
        @jit
        # Code snippet 2.3
        def assembleK(E):
            K_asm = jnp.zeros((self.mesh['ndof'], self.mesh['ndof']))
            K_elem = (self.K0.flatten()[np.newaxis]).T 
            # print(K_elem.shape)

            K_elem = (K_elem*E).T.flatten()
            K_asm = K_asm.at[(self.idx)].add(K_elem) #UPDATED
            return K_asm
        #-----------------------#
        @jit
        # Code snippet 2.4
        def solveKuf(K): 
            u_free = jax.scipy.linalg.solve\
                    (K[self.bc['free'],:][:,self.bc['free']], \
                    self.bc['force'][self.bc['free']], \
                     assume_a='pos', check_finite=False)
            u = jnp.zeros((self.mesh['ndof']))
            u = u.at[self.bc['free']].set(u_free.reshape(-1)) #UPDATED
            return u
        #-----------------------#
        rho = projectionFilter(rho)
        E = materialModel(rho)
        K = assembleK(E)
        u = solveKuf(K)
        J = jnp.dot(self.bc['force'].T, u)[0]
        
        return J
    #-----------------------#
    def computeConstraints(self, rho, epoch): 
        @jit  # expect: JIT301
        # Code snippet 2.6
        def computeGlobalVolumeConstraint(rho):
            g = jnp.mean(rho)/self.globalVolumeConstraint['vf'] - 1.
            return g
        # Code snippet 2.7
        c, gradc = value_and_grad(computeGlobalVolumeConstraint)\
                                    (rho);
        c, gradc = c.reshape((1,1)), gradc.reshape((1,-1))
        return c, gradc
    #-----------------------#
    def TO(self, optimizationParams, ft):
        optimize(self.mesh, optimizationParams, ft, \
             self.objectiveHandle, self.consHandle, self.numConstraints)


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **kw: compiles.append(str(kw.get("fun_name")))
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    Opt = ComplianceMinimizer(mesh, bc, material, \
                    globalVolumeConstraint, projection)
    Opt.TO(optimizationParams, ft)
    print(compiles)
    n_obj = sum('computeCompliance' in name for name in compiles)
    n_cons = sum('computeGlobalVolumeConstraint' in name for name in compiles)
    # observed: line 246 jits a new closure per computeConstraints call: two compiles per iteration
    assert n_obj == 1, compiles
    assert n_cons == 2 * optimizationParams['maxIters'], compiles
