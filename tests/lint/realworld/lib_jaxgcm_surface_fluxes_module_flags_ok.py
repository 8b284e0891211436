# source: https://github.com/climate-analytics-lab/jax-gcm/blob/81f4b2d377854fd43f346e116e0b10dfdd18eef0/jcm/surface_flux.py
#   (with the pieces it imports from jcm/params.py, jcm/physical_constants.py, jcm/geometry.py,
#   jcm/mod_radcon.py and jcm/humidity.py at the same commit, pasted above it in import order)
# observed on jax 0.10.2 CPU: jit(get_surface_fluxes) traces once and returns finite fluxes
#   of shape (96, 48, 3); its Python branches read module flags (lscasym, lskineb, fhum0) and
#   the literal sigma 1.0 passed to get_qsat, and the jitted initialize_geometry branches on
#   the module constant kx; none of them is a traced value. Added: only the needed names of
#   the imported modules (copied, not the whole modules), and the __main__ block with inputs.
# gap: cross-module
import jax
import jax.numpy as jnp
from jax import jit

# ---- jcm/params.py (excerpt)
ix = 96         # Number of longitudes
iy = 24         # Number of latitudes in hemisphere
il = 2 * iy     # Number of latitudes in full sphere
kx = 8          # Number of vertical levels

# ---- jcm/physical_constants.py (excerpt)
omega = 7.292e-05 # Rotation rate of Earth (rad/s)
grav = 9.81 # Gravitational acceleration (m/s/s)
p0 = 1.e+5 # Reference pressure (Pa)
cp = 1004.0 # Specific heat at constant pressure (J/K/kg)
akap = 2.0/7.0 # 1 - 1/gamma where gamma is the heat capacity ratio of a perfect diatomic gas (7/5)
rgas = akap * cp # Gas constant per unit mass for dry air (J/K/kg)
alhc = 2501.0 # Latent heat of condensation, in J/g for consistency with specific humidity in g/Kg
sbc = 5.67e-8 # Stefan-Boltzmann constant
sigl = jnp.log(jnp.linspace(1.0, 0.0, kx)) # Logarithm of full-level sigma
wvi = jnp.zeros((kx, 2)) # Weights for vertical interpolation

# ---- jcm/geometry.py (excerpt)
# Initializes all of the model geometry variables.
@jit
def initialize_geometry():
    # Definition of model levels
    if kx == 5:
        hsg = jnp.array([0.000, 0.150, 0.350, 0.650, 0.900, 1.000])
    elif kx == 7:
        hsg = jnp.array([0.020, 0.140, 0.260, 0.420, 0.600, 0.770, 0.900, 1.000])
    elif kx == 8:
        hsg = jnp.array([0.000, 0.050, 0.140, 0.260, 0.420, 0.600, 0.770, 0.900, 1.000])

    # Layer thicknesses and full (u,v,T) levels
    dhs = hsg[1:] - hsg[:-1]
    fsg = 0.5 * (hsg[1:] + hsg[:-1])

    # Additional functions of sigma
    dhsr = 0.5 / dhs
    fsgr = akap / (2.0 * fsg)

    # Horizontal functions

    # Latitudes and functions of latitude
    # NB: J=1 is Southernmost point!
    j = jnp.arange(1, iy + 1)

    sia_half = jnp.cos(3.141592654 * (j - 0.25) / (il + 0.5))
    coa_half = jnp.sqrt(1.0 - sia_half ** 2.0)

    sia = jnp.concatenate((-sia_half, sia_half[::-1]), axis=0).ravel()
    coa = jnp.concatenate((coa_half, coa_half[::-1]), axis=0).ravel()
    radang = jnp.concatenate((-jnp.arcsin(sia_half), jnp.arcsin(sia_half)[::-1]), axis=0)

    # Expand cosine and its reciprocal to cover both hemispheres
    cosg = jnp.repeat(coa_half, 2)
    cosgr = 1. / cosg
    cosgr2 = 1. / (cosg * cosg)

    coriol = 2.0 * omega * sia

    return hsg, dhs, fsg, dhsr, fsgr, sia_half, coa_half, sia, coa, radang, cosg, cosgr, cosgr2, coriol

hsg, dhs, fsg, dhsr, fsgr, sia_half, coa_half, sia, coa, radang, cosg, cosgr, cosgr2, coriol = initialize_geometry()

# ---- jcm/mod_radcon.py (excerpt)
emisfc = 0.98  # Longwave surface emissivity
alb_l = jnp.zeros((ix, il))  # Daily-mean albedo over land (bare-land + snow)
alb_s = jnp.zeros((ix, il))  # Daily-mean albedo over sea (open sea + sea ice)
snowc = jnp.zeros((ix, il))  # Effective snow cover (fraction)

# ---- jcm/humidity.py (excerpt)
def rel_hum_to_spec_hum(ta, ps, sig, rh):
    """
    Converts relative humidity to specific humidity, and also returns saturation 
    specific humidity.

    Args:
        ta: Absolute temperature 
        ps: Normalized pressure (p/1000 hPa)
        sig: Sigma level
        rh: Relative humidity

    Returns:
        qa: Specific humidity
        qsat: Saturation specific humidity
    """
    qsat = get_qsat(ta, ps, sig)
    qa = rh * qsat
    return qa, qsat


def get_qsat(ta, ps, sig):
    """
    Computes saturation specific humidity.
    
    Args:
        ta: Absolute temperature [K]
        ps: Normalized pressure (p/1000 hPa)
        sig: Sigma level
        
    Returns:
        qsat: Saturation specific humidity (g/kg)
    """
    
    e0 = 6.108e-3
    c1 = 17.269
    c2 = 21.875
    t0 = 273.16
    t1 = 35.86
    t2 = 7.66

    # Computing qsat for each grid point
    # 1. Compute Qsat (g/kg) from T (degK) and normalized pres. P (= p/1000_hPa)
    
    qsat = jnp.where(ta >= t0, e0 * jnp.exp(c1 * (ta - t0) / (ta - t1)), 
                      e0 * jnp.exp(c2 * (ta - t0) / (ta - t2)))
    
    # If sig > 0, P = Ps * sigma, otherwise P = Ps(1) = const.
    if sig <= 0.0:
        qsat = 622.0 * qsat / (ps[0, 0] - 0.378 * qsat)
    else:
        qsat = 622.0 * qsat / (sig * ps - 0.378 * qsat)

    return qsat

# ---- jcm/surface_flux.py
# constants for surface fluxes
fwind0 = 0.95 # Ratio of near-sfc wind to lowest-level wind

# Weight for near-sfc temperature extrapolation (0-1) :
# 1 : linear extrapolation from two lowest levels
# 0 : constant potential temperature ( = lowest level)
ftemp0 = 1.0

# Weight for near-sfc specific humidity extrapolation (0-1) :
# 1 : extrap. with constant relative hum. ( = lowest level)
# 0 : constant specific hum. ( = lowest level)
fhum0 = 0.0

cdl = 2.4e-3   # Drag coefficient for momentum over land
cds = 1.0e-3   # Drag coefficient for momentum over sea
chl = 1.2e-3   # Heat exchange coefficient over land
chs = 0.9e-3   # Heat exchange coefficient over sea
vgust = 5.0    # Wind speed for sub-grid-scale gusts
ctday = 1.0e-2 # Daily-cycle correction (dTskin/dSSRad)
dtheta = 3.0   # Potential temp. gradient for stability correction
fstab = 0.67   # Amplitude of stability correction (fraction)
clambda = 7.0  # Heat conductivity in skin-to-root soil layer
clambsn = 7.0  # Heat conductivity in soil for snow cover = 1

lscasym = True   # true : use an asymmetric stability coefficient
lskineb = True   # true : redefine skin temp. from energy balance

hdrag = 2000.0 # Height scale for orographic correction

# Placeholders for land surface boundary conditions - TODO: move this into physics initialization or something
stl_am = jnp.full((ix, il), 288.0)
soilw_am = jnp.full((ix, il), 0.5)

# import types

@jit
def get_surface_fluxes(psa, ua, va, ta, qa, rh , phi, phi0, fmask,  \
                 tsea, ssrd, slrd, lfluxland):
    '''

    Parameters
    ----------
    il - latitude
    ix - longitudes

    psa : 2D array
        - Normalised surface pressure
    ua : 3D array
        - u-wind
    va : 3D array
        - v-wind
    ta :  3D array
        - Temperature
    qa : 3D array
        - Specific humidity [g/kg]
    rh : 3D array
        - Relative humidity
    phi : 3D array
        - Geopotential
    phi0 : 2D array
        - Surface geopotential
    fmask : 2D array
        - Fractional land-sea mask
    tsea : 2D array
        - Sea-surface temperature
    ssrd : 2D array
        - Downward flux of short-wave radiation at the surface
    slrd : 2D array
        - Downward flux of long-wave radiation at the surface
    lfluxland : boolean

    Returns
    -------

    '''
    forog = set_orog_land_sfc_drag(phi0)

    # Initialize variables
    ustr = jnp.zeros((ix, il, 3))
    vstr = jnp.zeros((ix, il, 3))
    shf = jnp.zeros((ix, il, 3))
    evap = jnp.zeros((ix, il, 3))
    slru = jnp.zeros((ix, il, 3))
    hfluxn = jnp.zeros((ix, il, 2))
    tsfc = jnp.zeros((ix, il))
    tskin = jnp.zeros((ix, il))
    u0 = jnp.zeros((ix, il))
    v0 = jnp.zeros((ix, il))
    t0 = jnp.zeros((ix, il))

    t1 = jnp.zeros((ix, il, 2))
    q1 = jnp.zeros((ix, il, 2))
    t2 = jnp.zeros((ix, il, 2))
    qsat0 = jnp.zeros((ix, il, 2))
    denvvs = jnp.zeros((ix, il, 3))
    dslr = jnp.zeros((ix, il))
    dtskin = jnp.zeros((ix, il))
    clamb = jnp.zeros((ix, il))
    tsk3 = jnp.zeros((ix, il))

    esbc  = emisfc*sbc
    ghum0 = 1.0 - fhum0

    ##########################################################
    # Land surface
    ##########################################################

    # 1. Extrapolation of wind, temp, hum. and density to the surface

    # 1.1 Wind components
    u0 = fwind0*ua[:, :, kx-1]
    v0 = fwind0*va[:, :, kx-1]

    gtemp0 = 1.0 - ftemp0
    rcp = 1.0/cp 
    nl1 = kx-1

    # substituting the for loop at line 109
    # Temperature difference between lowest level and sfc
    # line 112
    dt1 = wvi[kx-1, 1]*(ta[:, :, kx-1] - ta[:, :, nl1-1])
    
    # Extrapolated temperature using actual lapse rate (0:land, 1:sea)
    # line 115 - 116
    t1 = t1.at[:, :, 0].add(ta[:, :, kx-1] + dt1)
    t1 = t1.at[:, :, 1].set(t1[:, :, 0] - phi0*dt1/(rgas*288.0*sigl[kx-1]))

    # Extrapolated temperature using dry-adiab. lapse rate (0:land, 1:sea)
    # line 119 - 120
    t2 = t2.at[:, :, 1].set(ta[:, :, kx-1] + rcp*phi[:, :, kx-1])
    t2 = t2.at[:, :, 0].set(t2[:, :, 1] - rcp*phi0)

    # lines 124 - 137
    t1 = jnp.where((ta[:, :, kx-1] > ta[:, :, nl1-1])[:, :, jnp.newaxis],
                   ftemp0*t1 + gtemp0*t2,
                   ta[:, :, kx-1][:, :, jnp.newaxis])
    
    t0 = t1[:, :, 1] + fmask * (t1[:, :, 0] - t1[:, :, 1])

    # line 140
    denvvs = denvvs.at[:, :, 0].set((p0*psa/(rgas*t0))*jnp.sqrt(u0**2 + v0**2 + vgust**2))

    # 2. Using Presribed Skin Temperature to Compute Land Surface Fluxes 
    # 2.1 Compensating for non-linearity of Heat/Moisture Fluxes by definig effective skin temperature

    # Vectorized computation using JAX arrays
    tskin = stl_am + ctday * jnp.sqrt(coa) * ssrd * (1.0 - alb_l) * psa

    # 2.2 Stability Correlation
    rdth  = fstab / dtheta
    if lscasym: astab = 0.5
    else: astab = 1.0

    dthl = jnp.where(
        tskin > t2[:, :, 1], 
        jnp.minimum(dtheta, tskin - t2[:, :, 0]), 
        jnp.maximum(-dtheta, astab * (tskin - t2[:, :, 0]))
    )

    denvvs = denvvs.at[:, :, 1].set(denvvs[:, :, 0] * (1.0 + dthl * rdth))

    # 2.3 Computing Wind Stress
    cdldv = cdl * denvvs[:, :, 0] * forog
    ustr = ustr.at[:, :, 0].set(-cdldv * ua[:, :, kx-1])
    vstr = vstr.at[:, :, 0].set(-cdldv * va[:, :, kx-1])

    # 2.4 Computing Sensible Heat Flux
    chlcp = chl * cp
    shf = shf.at[:, :, 0].set(chlcp * denvvs[:, :, 1] * (tskin - t1[:, :, 0]))

    # 2.5 Computing Evaporation
    if fhum0 > 0.0:
        q1_val, qsat0_val = rel_hum_to_spec_hum(t1[:, :, 0], psa, 1.0, rh[:, :, kx-1])
        q1 = q1.at[:, :, 0].set(fhum0*q1_val + ghum0*qa[:, :, kx-1])
        qsat0 = qsat0.at[:, :, 0].set(qsat0_val)
    else:
        q1 = q1.at[:, :, 0].set(qa[:, :, kx-1])

    qsat0 = qsat0.at[:, :, 0].set(get_qsat(tskin, psa, 1.0))

    evap = evap.at[:, :, 0].set(chl * denvvs[:, :, 1] *\
                jnp.maximum(0.0, soilw_am * qsat0[:, :, 0] - q1[:, :, 0]))

    # 3. Computing land-surface energy balance; Adjust skin temperature and heat fluxes
    # 3.1 Emission of lw radiation from the surface and net heat fluxes into land surface
    tsk3 = tskin ** 3.0
    dslr = 4.0 * esbc * tsk3
    slru = slru.at[:, :, 0].set(esbc * tsk3 * tskin)

    hfluxn = hfluxn.at[:, :, 0].set(
                    ssrd * (1.0 - alb_l) + slrd -\
                        (slru[:, :, 0] + shf[:, :, 0] + (alhc * evap[:, :, 0]))
                )

    # 3.2 Re-definition of skin temperature from energy balance
    if lskineb:
        # Compute net heat flux including flux into ground
        clamb = clambda + (snowc * (clambsn - clambda))
        hfluxn = hfluxn.at[:, :, 0].set(hfluxn[:, :, 0] - (clamb * (tskin - stl_am)))
        dtskin = tskin + 1.0

        # Compute d(Evap) for a 1-degree increment of Tskin
        qsat0 = qsat0.at[:, :, 1].set(get_qsat(dtskin, psa, 1.0))
        qsat0 = qsat0.at[:, :, 1].set(
                jnp.where(
                    evap[:, :, 0] > 0.0,
                    soilw_am * (qsat0[:, :, 1] - qsat0[:, :, 0]),
                    0.0
                )
            )

        # Redefine skin temperature to balance the heat budget
        dtskin = hfluxn[:, :, 0] / (clamb + dslr + (chl * denvvs[:, :, 1] * (cp + (alhc * qsat0[:, :, 1]))))
        tskin = tskin + dtskin

        # Add linear corrections to heat fluxes
        shf = shf.at[:, :, 0].set(shf[:, :, 0] + chlcp*denvvs[:, :, 1]*dtskin)
        evap = evap.at[:, :, 0].set(evap[:, :, 0] + chl*denvvs[:, :, 1]*qsat0[:, :, 1]*dtskin)
        slru = slru.at[:, :, 0].set(slru[:, :, 0] + dslr*dtskin)
        hfluxn = hfluxn.at[:, :, 0].set(clamb*(tskin - stl_am))

        dths = jnp.where(
            tsea > t2[:, :, 1],
            jnp.minimum(dtheta, tsea - t2[:, :, 1]),
            jnp.maximum(-dtheta, astab * (tsea - t2[:, :, 1]))
        )
        
        denvvs = denvvs.at[:, :, 2].set(denvvs[:, :, 0] * (1.0 + dths * rdth))

        if fhum0 > 0.0:
            q1_val, qsat0_val = rel_hum_to_spec_hum(t1[:, :, 1], psa, 1.0, rh[:, :, kx-1])
            q1 = q1.at[:, :, 1].set(fhum0*q1_val + ghum0*qa[:, :, kx-1])
            qsat0 = qsat0.at[:, :, 1].set(qsat0_val)
        else:
            q1 = q1.at[:, :, 1].set(qa[:, :, kx-1])

        # 4.2 Wind Stress
        ks = 2

        cdsdv = cds * denvvs[:, :, ks]
        ustr = ustr.at[:, :, 1].set(-cdsdv * ua[:, :, kx-1])
        vstr = vstr.at[:, :, 1].set(-cdsdv * va[:, :, kx-1])

    ##########################################################
    # Sea Surface
    ##########################################################

    ks = 2

    # 4.3 Sensible heat flux
    shf = shf.at[:, :, 1].set(chs * cp * denvvs[:, :, ks] * (tsea - t1[:, :, 1]))

    # 4.4 Evaporation
    qsat0 = qsat0.at[:, :, 1].set(get_qsat(tsea, psa, 1.0))
    evap = evap.at[:, :, 1].set(chs * denvvs[:, :, ks] * (qsat0[:, :, 1] - q1[:, :, 1]))
    
    # 4.5 Lw emission and net heat fluxes
    slru = slru.at[:, :, 1].set(esbc * (tsea ** 4.0))
    hfluxn = hfluxn.at[:, :, 1].set(ssrd * (1.0 - alb_s) + slrd - slru[:, :, 1] + shf[:, :, 1] + alhc * evap[:, :, 1])

    # Weighted average of surface fluxes and temperatures according to land-sea mask
    weighted_average = lambda var: var[:, :, 1] + fmask * (var[:, :, 0] - var[:, :, 1])
    ustr = ustr.at[:, :, 2].set(weighted_average(ustr))
    vstr = vstr.at[:, :, 2].set(weighted_average(vstr))
    shf = shf.at[:, :, 2].set(weighted_average(shf))
    evap = evap.at[:, :, 2].set(weighted_average(evap))
    slru = slru.at[:, :, 2].set(weighted_average(slru))

    t0 = weighted_average(t1)

    tsfc  = tsea + fmask * (stl_am - tsea)
    tskin = tsea + fmask * (tskin  - tsea)

    return ustr, vstr, shf, evap, slru, hfluxn, tsfc, tskin, u0, v0, t0

@jit
def set_orog_land_sfc_drag(phi0):
    '''
    Parameters
    ----------
    phi0 : Array
        - Array used for calculating the forog
    '''

    rhdrag = 1/(grav*hdrag)

    forog = 1.0 + rhdrag*(1.0 - jnp.exp(-jnp.maximum(phi0, 0.0)*rhdrag))

    return forog

    

    



if __name__ == "__main__":
    k = jax.random.split(jax.random.PRNGKey(0), 4)
    psa = jnp.ones((ix, il))
    ua = 5.0 * jax.random.normal(k[0], (ix, il, kx))
    va = 5.0 * jax.random.normal(k[1], (ix, il, kx))
    ta = 280.0 + jax.random.normal(k[2], (ix, il, kx))
    qa = jnp.full((ix, il, kx), 5.0)
    rh = jnp.full((ix, il, kx), 0.7)
    phi = jnp.broadcast_to(jnp.linspace(8e4, 0.0, kx), (ix, il, kx))
    phi0 = jnp.abs(100.0 * jax.random.normal(k[3], (ix, il)))
    fmask = jnp.full((ix, il), 0.3)
    tsea = jnp.full((ix, il), 290.0)
    ssrd = jnp.full((ix, il), 200.0)
    slrd = jnp.full((ix, il), 300.0)
    out = get_surface_fluxes(psa, ua, va, ta, qa, rh, phi, phi0, fmask,
                             tsea, ssrd, slrd, True)
    assert out[0].shape == (ix, il, 3)
    assert all(bool(jnp.all(jnp.isfinite(o))) for o in out)
    assert get_surface_fluxes._cache_size() == 1
