# source: https://github.com/HajimeKawahara/exojax/pull/313
#   (exojax "Release v1.2", the review comment by astrostevanus: the tutorial
#   examples/tutorial/optimize_spectrum_JAXopt.ipynb run against exojax 1.1.4.dev raises
#   TracerArrayConversionError in utils/grids.py velocity_grid, reached from
#   response.rigidrot in the notebook's obyo. The library code is exojax at
#   https://github.com/HajimeKawahara/exojax/blob/b284c2610efa1cbaa4a28d9a46a034c21b877ffd/src/exojax/spec/response.py
#   (rigidrot, ipgauss_sampling), utils/grids.py (velocity_grid,
#   delta_velocity_from_resolution), utils/instfunc.py (resolution_eslog) and
#   spec/spin_rotation.py (convolve_rigid_rotation, rotkernel without its custom_jvp rule).)
#   Added: imports; synthetic stand-ins for spectrum.txt (wavd, flux); the smallest
#   stand-ins for exojax helpers the notebook imports: nugrid (an evenly log-spaced
#   wavenumber grid), pressure_layer (as in exojax's rtransfer.py), molinfo.molmass (two
#   constants), planck.piBarr (as in exojax's planck.py) and exojax.utils.constants.c; in
#   obyo (whose table arguments go with them) the CO line opacity, CIA and radiative
#   transfer (rtrun) steps are replaced by a Planck-function stand-in for F0; jaxopt (not
#   installed) is replaced by gd_run, a jitted fori_loop of gradient steps with
#   GradientDescent's maxiter and stepsize, as jaxopt runs its steps in a lax loop under
#   jit. The plotting cells are left out.
# observed on jax 0.10.2 CPU: gd_run traces objective -> model_c -> rigidrot. nus is a NumPy
#   grid, so resolution_eslog returns a Python float, but delta_velocity_from_resolution
#   computes dv with jnp.log1p, which under jit returns a tracer; Nk = (vmax/dv)+1 and its
#   astype(int) are tracers too, and np.arange(-Nk, Nk + 1) in velocity_grid raises
#   TracerArrayConversionError, as in the review comment.
# gap: omnistaging
import numpy as np
import jax
import jax.numpy as jnp
from jax import jit, vmap
from jax.lax import scan

c = 299792.458  # stand-in: exojax.utils.constants.c (km/s)


# --- exojax/utils/instfunc.py ---
def resolution_eslog(nu):
    """spectral resolution for ESLOG.

    Args:
       nu: wavenumber bin

    Returns:
       resolution
    """
    return (len(nu)-1)/np.log(nu[-1]/nu[0])


# --- exojax/utils/grids.py ---
def delta_velocity_from_resolution(resolution):
    """delta velocity from spectral resolution R

    Args:
        resolution : spectral resolution

    Returns:
        delta velocity
    """
    return c * jnp.log1p(1.0 / resolution)


def velocity_grid(resolution, vmax):
    """generate velocity grid for a rigid rotation

    Args:
        resolution: spectral resolution
        vmax: maximum velocity (or Vsini) allowed (km/s)

    Returns:
        1D array: delta velocity grid 
    """
    dv = delta_velocity_from_resolution(resolution)
    Nk = (vmax / dv) + 1
    Nk = Nk.astype(int)
    return dv * np.arange(-Nk, Nk + 1)  # expect: JIT402  # tolerate: JIT404


# --- exojax/spec/spin_rotation.py ---
def rotkernel(x, u1, u2):
    """rotation kernel w/ the quadratic Limb dwarkening law, numerator of (54) in Kawahara+2022
    """
    x2 = x * x
    kernel = jnp.where(
        x2 <= 1.0,
        jnp.pi / 2.0 * u1 * (1.0 - x2) - 2.0 / 3.0 * jnp.sqrt(1.0 - x2) *
        (-3.0 + 3.0 * u1 + u2 + 2.0 * u2 * x2), 0.0)
    return kernel


@jit
def convolve_rigid_rotation(F0, vr_array, vsini, u1=0.0, u2=0.0):
    """Apply the Rotation response to a spectrum F (No OLA and No cuDNN).
    """
    kernel = rotkernel(vr_array/vsini, u1, u2)
    kernel = kernel / jnp.sum(kernel, axis=0)
    input_length = len(F0)
    filter_length = len(kernel)
    fft_length = input_length + filter_length - 1
    convolved_signal = jnp.fft.irfft(
        jnp.fft.rfft(F0, n=fft_length) * jnp.fft.rfft(kernel, n=fft_length))
    n = int((filter_length - 1) / 2) 
    convolved_signal = convolved_signal[n:-n]

    return convolved_signal


# --- exojax/spec/response.py ---
def rigidrot(nus, F0, vsini, u1, u2, vsinimax=100.0):
    """(deprecated) rigid rotation. This will be removed.
    """
    resolution = resolution_eslog(nus)
    vr_array = velocity_grid(resolution, vsinimax)
    return convolve_rigid_rotation(F0, vr_array, vsini, u1, u2)


@jit
def ipgauss_sampling(nusd, nus, F0, beta, RV):
    """Apply the Gaussian IP response + sampling to a spectrum F.
    """
    def convolve_ipgauss_scan(carry, nusd_each):
        dvgrid = c * (jnp.log1p(1.0 - nus / nusd_each))
        kernel = jnp.exp(-(dvgrid + RV)**2 / (2.0 * beta**2))
        kernel = kernel / jnp.sum(kernel)
        return carry, kernel@F0

    _, F_convolved = scan(convolve_ipgauss_scan, 0, nusd)
    return F_convolved


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

        Frot=rigidrot(nus,F0,vsini,u1,u2)
        #Frot=rigidrotx(nus,F0,vsini,u1,u2)
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
