# source: https://github.com/cchu92/Jax_ProgMat/blob/283fdc5fecb865abf73d00fc93b7f1667ec38b86/ProgMat_v2_official.py
#   (programmable-material design by thermal expansion: a CTE distribution is optimized so that the
#   heated plate's upper edge takes a target shape; with computeFilter, implicit_Ke, implicit_Ae and
#   stiffindex4AK from utilfuncs.py at the same commit)
# observed on jax 0.10.2 CPU: ProgDef.objective ends with `self.u = u;`, and the design loop calls it
#   through jax.jacobian(opti.objective) every iteration, so each iteration stores the Jacobian's
#   tracer on the object: after the loop opti.u is a leaked LinearizeTracer, not the displacement
#   field, and reading it (opti.u + 0) raises UnexpectedTracerError.
# gap: stale-state-attributes
# added/changed: `from utilfuncs import ...` is replaced by those four functions (the commented-out
#   code and the unused unknow_degree of utilfuncs.py are dropped); the MMA update (mmasub from the
#   repository's MMA.py, ~400 lines) is replaced by a projected gradient step on the same bounds;
#   matplotlib is not installed here, so the plotting in the loop and after it is dropped; the loop
#   runs 3 iterations instead of 40; the __main__ block is added.
import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, value_and_grad


def computeFilter(nelx,nely, rmin):
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


def implicit_Ke(ca):
    # ca is the 9*1 elastic matrix, or a 9*n elastic matrix, which for the all 
    # elements

    # INPUTS:
    # ca: 9*1 or 9*n array, the elastic matrix of candidate material
    # OUTPUTS:
    # Ke: 24*n array, the element stiffness matrix
    t2 = ca [0,: ]/3.0 
    t3 = ca [1,: ]/4.0 
    t4 = ca [2,: ]/3.0 
    t5 = ca [0,: ]/6.0 
    t6 = ca [2,: ]/4.0 
    t7 = ca [3,: ]/4.0 
    t8 = ca [4,: ]/3.0 
    t9 = ca [2,: ]/6.0 
    t10 = ca [5,: ]/3.0 
    t11 = ca [5,: ]/4.0 
    t12 = ca [6,: ]/3.0 
    t13 = ca [4,: ]/6.0 
    t14 = ca [6,: ]/4.0 
    t15 = ca [7,: ]/3.0 
    t16 = ca [5,: ]/6.0 
    t17 = ca [7,: ]/4.0 
    t18 = ca [8,: ]/3.0 
    t19 = ca [6,: ]/6.0 
    t20 = ca [8,: ]/4.0 
    t21 = ca [7,: ]/6.0 
    t22 = ca [8,: ]/6.0 
    t23 = -t2 
    t24 = -t3 
    t25 = -t4 
    t26 = -t5 
    t27 = -t6 
    t28 = -t7 
    t29 = -t8 
    t30 = -t9 
    t31 = -t10 
    t32 = -t11 
    t33 = -t12 
    t34 = -t13 
    t35 = -t14 
    t36 = -t15 
    t37 = -t16 
    t38 = -t17 
    t39 = -t18 
    t40 = -t19 
    t41 = -t20 
    t42 = -t21 
    t43 = -t22 
    t44 = t2+t6+t14+t18 
    t45 = t3+t4+t15+t20 
    t46 = t7+t10+t12+t20 
    t47 = t8+t11+t17+t18 
    t48 = t2+t18+t27+t35 
    t49 = t4+t15+t24+t41 
    t50 = t14+t22+t23+t27 
    t51 = t6+t22+t23+t35 
    t52 = t5+t14+t27+t39 
    t53 = t5+t6+t35+t39 
    t54 = t20+t21+t24+t25 
    t55 = t9+t20+t24+t36 
    t56 = t3+t21+t25+t41 
    t57 = t3+t9+t36+t41 
    t58 = t6+t14+t26+t43 
    t59 = t10+t12+t28+t41 
    t60 = t3+t20+t30+t42 
    t61 = t8+t18+t32+t38 
    t62 = t19+t20+t28+t31 
    t63 = t16+t20+t28+t33 
    t64 = t7+t19+t31+t41 
    t65 = t7+t16+t33+t41 
    t66 = t17+t22+t29+t32 
    t67 = t11+t22+t29+t38 
    t68 = t13+t17+t32+t39 
    t69 = t11+t13+t38+t39 
    t70 = t7+t20+t37+t40 
    t71 = t11+t17+t34+t43 
    t72 = t26+t27+t35+t43 
    t73 = t24+t30+t41+t42 
    t74 = t28+t37+t40+t41 
    t75 = t32+t34+t38+t43 


    # Ke = jnp.vstack((t44,t45, t51, t56, t72, t73 ,t52, t55, t46 ,t47 ,\
    # t63, t68, t74, t75, t64, t67, t50, t54, t48, t49, t53, t57, t58, t60, t65, t69,\
    # t59, t61, t62, t66, t70, t71, t72, t73, t52, t55, t44, t45, t51, t56, t74, t75, t64, t67, t46, t47, t63,\
    # t68, t53, t57, t58, t60, t50, t54, t48, t49, t62, t66, t70, t71, t65, t69, t59, t61),dtype=jnp.float32)

    Ke = jnp.vstack((t44,t45, t51, t56, t72, t73 ,t52, t55, t46 ,t47 ,\
    t63, t68, t74, t75, t64, t67, t50, t54, t48, t49, t53, t57, t58, t60, t65, t69,\
    t59, t61, t62, t66, t70, t71, t72, t73, t52, t55, t44, t45, t51, t56, t74, t75, t64, t67, t46, t47, t63,\
    t68, t53, t57, t58, t60, t50, t54, t48, t49, t62, t66, t70, t71, t65, t69, t59, t61))

    Ke =jnp.ravel(Ke, order='F')

    return Ke


def implicit_Ae(da):
# where the are component of elastic matrix
# the input 'da' is the 3 by (nx^ny) matrix, with each colume inputs
# INPUTS:
# da: 3*nx*ny array, the are component of elastic matrix
# OUTPUTS:
# Ae: 24*n array, the element stiffness matrix
    t2 = da[0,:]/6.0
    t3 = da[1,:]/6.0
    t4 = da[2,:]/6.0
    t8 = da[0,:]/12.
    t9 = da[1,:]/12.
    t10 = da[2,:]/12.
    t5 = -t2
    t6 = -t3
    t7 = -t4
    t11 = -t8
    t12 = -t9
    t13 = -t10
    # Ae = jnp.vstack((t5+t7,t6+t7,t2+t13,t4+t12,t8+t10,t9+t10,t4+t11,t3+t13,\
    # t5+t13,t7+t12,t2+t7,t4+t6,t4+t8,t3+t10,t10+t11,t9+t13,t11+t13,t12+t13,\
    # t7+t8,t6+t10,t2+t4,t3+t4,t5+t10,t7+t9,t7+t11,t6+t13,t8+t13,t10+t12,t2+t10,t4+t9,t4+t5,t3+t7),dtype=jnp.float32)


    Ae = jnp.vstack((t5+t7,t6+t7,t2+t13,t4+t12,t8+t10,t9+t10,t4+t11,t3+t13,\
    t5+t13,t7+t12,t2+t7,t4+t6,t4+t8,t3+t10,t10+t11,t9+t13,t11+t13,t12+t13,\
    t7+t8,t6+t10,t2+t4,t3+t4,t5+t10,t7+t9,t7+t11,t6+t13,t8+t13,t10+t12,t2+t10,t4+t9,t4+t5,t3+t7))


    Ae = jnp.ravel(Ae, order='F')
    return Ae


def stiffindex4AK(nx,ny):
    # Indexing vectors for 'A' and 'K'
    # INPUTS:
    # nx: int, number of elements in x direction
    # ny: int, number of elements in y direction
    # OUTPUTS:
    # iK: 24*24*n array, the index of element stiffness matrix
    # jK: 24*24*n array, the index of element stiffness matrix
    # iA: 24*24*n array, the index of element stiffness matrix
    # jA: 24*24*n array, the index of element stiffness matrix

    xgrid, ygrid = np.meshgrid(np.arange(1,nx+1), np.arange(1,ny+1))
    n1 = (ny+1)*(xgrid-1) + ygrid
    n1 = n1.reshape(-1,1,order='F')
    n2 = (ny+1)*xgrid + ygrid
    n2 = n2.reshape(-1,1,order='F')
    edof4 = np.c_[n1+1, n2+1, n2, n1]
    edof8 = np.c_[2*n1+1, 2*n1+2, 2*n2+1, 2*n2+2, 2*n2-1, 2*n2, 2*n1-1, 2*n1]
    
    # it is adjust for jax 
    iK =tuple( ((np.kron(edof8, np.ones((8, 1)))).T - 1).flatten('F').astype(int))
    jK = tuple(((np.kron(edof8, np.ones((1, 8)))).T - 1).flatten('F').astype(int))
    iA = tuple(((np.kron(edof8, np.ones((4, 1)))).T - 1).flatten('F').astype(int))
    jA = tuple(((np.kron(edof4, np.ones((1, 8)))).T - 1).flatten('F').astype(int))

    # jK = ((np.kron(edof8, np.ones((1, 8)))).T - 1).flatten('F')
    # iA = ((np.kron(edof8, np.ones((4, 1)))).T - 1).flatten('F')
    # jA = ((np.kron(edof4, np.ones((1, 8)))).T - 1).flatten('F') 
    return iK, jK, iA,jA


# modified
class ProgDef():
    def __init__(self,nelx,nely,index,value):
        self.nelx, self.nely = nelx,nely;
        self.nel = self.nelx*self.nely;
        self.ndof = 2*(self.nelx+1)*(self.nely+1);
        self.filterRadius = 3
        H, Hs = computeFilter(self.nelx,self.nely,self.filterRadius)
        self.H,self.Hs = jnp.array(H), jnp.array(Hs)
        self.iK, self.jK, self.iA,self.jA = stiffindex4AK(self.nelx,self.nely)
        self.E = 2;self.nu = 0.3;
    
        ut_obj= jnp.zeros((self.ndof,));
        ut_obj = ut_obj.at[index].set(value);# target deformation freedom, with deformation at non-interested freedom set to zero
        index_u_t = jnp.zeros((self.ndof,));
        index_u_t = index_u_t.at[index].set(1);# identity matrix of size (node*2,1) with 1 in the target deformation freedom;
        self.ut_obj , self.index_u_t = ut_obj, index_u_t
        # return self.ut_obj, self.index_u_t
        

    def objective(self,x):
        # INPUT: THE DISTRIBUTION OF CTE
        # OUTPUT: THE ERROR OF THE PROGRAMA DISPLACEMENT TO THE TEST DISPLACEMENT
        def da_ca_(x):
            Ca  =  (self.E/(1-self.nu**2))* jnp.array([[1,self.nu,0],[self.nu,1,0],[0,0,(1-self.nu)/2]]).reshape(-1,order='F');
            da = Ca.reshape(3,3,order='F') @jnp.array([1,1,0]).reshape(-1,1)
            da_ = jnp.dot(x.reshape(-1,1,order='F'),da.T).T; # linear interpolation
            Ca_ = jnp.dot(jnp.ones((self.nel,1)),Ca.reshape(1,-1,order='F')).T 
            return da_, Ca_
        
        def sK_sA(da_,Ca_):
            sK = implicit_Ke(Ca_)
            sA = implicit_Ae(da_)
            return sK, sA
            
        def K_A(sK,sA):
            K = jnp.zeros((self.ndof,self.ndof))
            A = jnp.zeros((self.ndof,(self.nelx+1)*(self.nely+1)));
            K = K.at[(self.iK,self.jK)].add(sK.flatten('F'))
            A = A.at[(self.iA,self.jA)].add(sA.flatten('F'))  
            
            return K,A
        
        def Kuf(K,A):
            u = jnp.zeros((self.ndof,1)); # deformation field
            theta = jnp.ones(((self.nelx+1)*(self.nely+1),1)); # temperater loading

            fix_left = jnp.arange(0,(self.nely+1)*2,1); # left boundary
            fix_right = jnp.arange(self.ndof-(self.nely+1)*2,self.ndof,1); # right boundary
            dof_fix = jnp.concatenate((fix_left,fix_right),axis=0); # fixed left and right boundary
            dof_fix = fix_left; # fixed only left 

            dof_free = jnp.setdiff1d(jnp.arange(0,self.ndof),dof_fix); # free freedom

            # SOLVE 
            Kr = K[dof_free,:][:,dof_free]; # reduced stiffness matrix
            f_t = A@theta # equivalent nodal force vector
            f_r = f_t[dof_free]; # reduced equivalent nodal force vector
            u_t = jnp.linalg.solve(Kr,f_r); # reduced deformation vector
            u = u.at[dof_free].set(u_t).reshape(-1,order='F'); # deformation vector
            # print(u.shape)
            return u
        
        da_ , Ca_ = da_ca_(x);
        Ke, Ae = sK_sA(da_,Ca_);
        K, A = K_A(Ke,Ae);
        u = Kuf(K,A);

        obj =  jnp.sqrt(jnp.sum(jnp.power(jnp.abs(u*self.index_u_t - self.ut_obj),2)))
        self.u = u;  # expect: JIT202

        return obj,u
        

# %% TARGET SETTING CASE1: UPPER BOUNDARY DEFORMATION
# upper bounary deformation  freedom
nely = 6; nelx = 15;
node_upper = jnp.arange(1,(nely+1)*nelx+1+1,nely+1);
dof_upper = jnp.concatenate((node_upper*2-1,node_upper*2),axis=0)-1;
dof_upper_uy = node_upper *2-1;
dof_upper_ux = node_upper *2-1-1;

value_upper_uy = jnp.linspace(0,0.1,nelx+1)**2;
value_upper_ux = jnp.zeros((len(dof_upper_ux),));

defo_index = jnp.concatenate((dof_upper_ux,dof_upper_uy),axis=0);
defo_value = jnp.concatenate((value_upper_ux,value_upper_uy),axis=0);

nelx = 15; nely = 6;
opti = ProgDef(nelx,nely,defo_index,defo_value);



# %% MMA INITILIZATION
m = 1 
n = nelx* nely; 

x =np.ones(((nelx)*(nely),1))*0.001;  #initial guess
xval = x;
xmin = np.zeros((n,1))# lower bound
xmax = np.ones((n,1))*0.002 # upper bound
xold1 = xval.copy() 
xold2 = xval.copy() 
low = np.ones((n,1))
upp = np.ones((n,1))
a0 = 1.0 
a = np.zeros((m,1)) 
c = 10000*np.ones((m,1))
d = np.zeros((m,1))
move = 0.2 

# %%  OPTIMIZATION
change = 1; loop = 0;
while (change>0.0000000001) and (loop<3):
    loop = loop+1;

    # OBJECTIVE FUNCTION AND SENSITIVITY ANALYSIS
    x = jnp.array(x).reshape(-1,1,order='F');
    obj,u =opti.objective(x);
    jacobian_fn = jax.jacobian(opti.objective, argnums=0);
    dobj_dx = jacobian_fn(x)[0];
    
    # FILTERING

    # OPTIMIZATION
    mu0 = 1.0 # Scale factor for objective function
    mu1 = 1.0 # Scale factor for volume constraint function
    f0val = mu0*obj; # [1,1] objective function value
    df0dx = mu0*dobj_dx.reshape(-1,1,order='F') # gradient of the objective function
    df0dx = np.array(df0dx) # jnp to numpy, (n,1)
    fval = np.array([0])[np.newaxis]; # [1,1] constraint function value, not used here
    dfdx =np.zeros([1,n]); # [1,n] gradient of the constraint function, not used here
    xval = np.array(x).reshape(-1,1,order='F') ; # jnp to numpy, (n,1)
    # stand-in for mmasub: a projected gradient step within [xmin, xmax]
    xmma = np.clip(xval - 0.2*xmax*df0dx/np.abs(df0dx).max(), xmin, xmax)
    xold2 = xold1.copy()
    xold1 = xval.copy()
    x = xmma.copy()
    change = np.max(np.abs(x-xold1))
    print('loop = ',loop,'change = ',change,'obj = ',obj)



if __name__ == "__main__":
    # observed: line 273 leaves the jacobian's tracer on opti after the loop; the eager call's u was overwritten
    assert isinstance(opti.u, jax.core.Tracer), type(opti.u)
    try:
        opti.u + 0
    except jax.errors.UnexpectedTracerError:
        pass
    else:
        raise AssertionError("opti.u was usable")
