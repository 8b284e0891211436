# source: https://github.com/HajimeKawahara/exojax/commit/34fb6b5f5828424d715058db4ed32e238b527952
#   (exojax "bug fix in JIT/ ipgauss_sampling": src/exojax/spec/response.py ipgauss_sampling
#   as the commit leaves it, with the range check commented out, and the cells of the
#   tutorial examples/tutorial/optimize_spectrum_JAXopt.ipynb that reach it: the setup of
#   cell 8, model_c, objective and the jaxopt fit. The accepted fix of
#   exojax_34fb6b5_ipgauss_sampling_np_min_check_under_fit.py.)
#   Added: imports; synthetic stand-ins for spectrum.txt (wavd, flux); the smallest
#   stand-ins for exojax helpers the notebook imports: nugrid (an evenly log-spaced
#   wavenumber grid), pressure_layer (as in exojax's rtransfer.py), molinfo.molmass (two
#   constants), planck.piBarr (as in exojax's planck.py) and exojax.utils.constants.c; in
#   obyo (whose table arguments go with them) the CO line opacity, CIA, radiative transfer
#   (rtrun) and rigidrot steps are replaced by a Planck-function stand-in for F0 (Frot = F0);
#   jaxopt (not installed) is replaced by gd_run, a jitted fori_loop of gradient steps with
#   GradientDescent's maxiter and stepsize, as jaxopt runs its steps in a lax loop under jit.
#   The plotting cells are left out.
# observed on jax 0.10.2 CPU: gd_run traces and runs the 1000 gradient steps; the jitted
#   ipgauss_sampling_jax defined inside ipgauss_sampling is only ever called while gd_run
#   traces, so it is inlined into that one compilation; the NumPy calls left (np.min(wavd),
#   np.sqrt, np.log) act on host constants.
# gap: exemption-vs-JAX
import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, vmap

c = 299792.458  # stand-in: exojax.utils.constants.c (km/s)


# --- exojax/spec/response.py at the commit ---
def ipgauss_sampling(nusd, nus, F0, beta, RV):
    """Apply the Gaussian IP response + sampling to a spectrum F.

    Args:
        nusd: sampling wavenumber
        nus: input wavenumber, evenly log-spaced
        F0: original spectrum (F0)
        beta: STD of a Gaussian broadening (IP+microturbulence)
        RV: radial velocity (km/s)

    Return:
        response-applied spectrum (F)
    """
#    The following check should be placed as another function. 
#    if(np.min(nusd) < np.min(nus) or np.max(nusd) > np.max(nus)):
#        print('WARNING: The wavenumber range of the observational grid [', np.min(nusd), '-', np.max(nusd), ' cm^(-1)] is not fully covered by that of the model grid [', np.min(nus), '-', np.max(nus), ' cm^(-1)]. This can result in the incorrect response-applied spectrum. Check the wavenumber grids for the model and observation.', sep='')

    @jit
    def ipgauss_sampling_jax(nusd, nus, F0, beta, RV):
        dvmat = jnp.array(c*jnp.log(nusd[None, :]/nus[:, None]))
        kernel = jnp.exp(-(dvmat+RV)**2/(2.0*beta**2))
        kernel = kernel/jnp.sum(kernel, axis=0)  # axis=N
        F = kernel.T@F0
        return F

    F = ipgauss_sampling_jax(nusd, nus, F0, beta, RV)
    return F


# --- stand-ins for the exojax helpers the notebook uses ---
def nugrid(x0, x1, N, unit="AA"):
    wav = np.logspace(np.log10(x0), np.log10(x1), N, dtype=np.float64)
    nus = 1.e8/wav[::-1]
    return nus, wav, None


def pressure_layer(logPtop=-8., logPbtm=2., NP=20):
    dlogP = (logPbtm-logPtop)/(NP-1)
    k = 10**-dlogP
    Parr = jnp.logspace(logPtop, logPbtm, NP)
    dParr = (1.0-k)*Parr
    return jnp.array(Parr), jnp.array(dParr), k


def piBarr(T, nus):
    hcperk = 1.4387773538277202
    fac = 3.741771790075259e-05
    return (fac*nus**3)/(jnp.exp(hcperk*nus/T[:, None])-1.0)


# stand-in for spectrum.txt
wavd = np.linspace(22930.0, 22990.0, 300)
flux = 40000.0*(1.0 - 0.1*np.exp(-0.5*((wavd - 22960.0)/2.0)**2))

# cell 5
nusd=jnp.array(1.e8/wavd[::-1])
sigmain=0.05
norm=40000
nflux=flux/norm+np.random.normal(0,sigmain,len(wavd))

# cell 8
NP=100
Parr, dParr, k=pressure_layer(NP=NP)
Nx=1500
nus,wav,res=nugrid(np.min(wavd)-5.0,np.max(wavd)+5.0,Nx,unit="AA")

R=100000.
beta=c/(2.0*np.sqrt(2.0*np.log(2.0))*R)

molmassCO=28.01  # stand-in: molinfo.molmass("CO")
mmw=2.33 #mean molecular weight
mmrH2=0.74
molmassH2=2.016  # stand-in: molinfo.molmass("H2")
vmrH2=(mmrH2*mmw/molmassH2) #VMR

Mp = 33.2 #fixing mass...

# cell 16
Pref=1.0 #bar
ONEARR=np.ones_like(Parr)
ONEWAV=jnp.ones_like(nflux)


# cell 19
def model_c(params,boost,nu1):
    Rp,RV,MMR_CO,T0,alpha,vsini=params*boost
    g=2478.57730044555*Mp/Rp**2 #gravity
    u1=0.0
    u2=0.0
    #T-P model//
    Tarr = T0*(Parr/Pref)**alpha

    def obyo(nusd,nus):
        # stand-in for the CO/CIA opacity and rtrun: a layer-averaged Planck spectrum
        sourcef = piBarr(Tarr,nus)
        F0=jnp.sum(sourcef*dParr[:,None],axis=0)/jnp.sum(dParr)/norm

        Frot=F0  # stand-in for response.rigidrot(nus,F0,vsini,u1,u2)
        mu=ipgauss_sampling(nusd,nus,Frot,beta,RV)
        return mu

    model=obyo(nu1,nus)
    return model


# cell 23
#Rp,RV,MMR_CO,T0,alpha,vsini
boost=np.array([1.0,10.0,0.1,1000.0,1.e-3,10.0])
initpar=np.array([0.8,9.0,0.1,1200.0,0.1,17.0])/boost


# cell 25
def objective(params):
    f=nflux-model_c(params,boost,nusd)
    g=jnp.dot(f,f)
    return g


# stand-in for jaxopt.GradientDescent(fun=objective, maxiter=1000, stepsize=1.e-4).run
@jax.jit
def gd_run(init_params):
    def body(i, params):
        return params - 1.e-4*jax.grad(objective)(params)
    return jax.lax.fori_loop(0, 1000, body, init_params)


# cell 27
params = gd_run(initpar)
print(params*boost)
