# source: https://github.com/iamlemec/econsir/blob/08b8a42c84e489717848ed96abab7178f79a6d7e/econsir/model.py
#   (Econ-SIR epidemic model: the SIR step `sir`, `gen_path` run by lax.scan and jitted with
#   T and K static, `zero_state` and `simulate_path`, as in the repository. Changed:
#   `jax.partial` (removed from JAX) is spelled functools.partial; simulate_path loses its
#   `load_args` branch for a TOML path and its pandas `framify` branch (frame=True), so only
#   the arrays are returned. Added: `eps` and `log` from econsir/tools.py, the parameters of
#   params/default.toml as a dict of float32 scalars (what tools.load_args makes of them),
#   and the __main__ block)
# observed on jax 0.10.2 CPU: gen_jit compiles once for (T, K) = (365, 10) and is reused for
#   a second policy; a changed T compiles anew as static_argnums intends; the state stays
#   finite and the population shares sum to one.
# gap: exemption-vs-JAX
from functools import partial

import jax
import jax.lax as lax
import jax.numpy as np
from jax.scipy.special import ndtr

# from econsir/tools.py
eps = 1e-10

def log(x):
    return np.log(np.maximum(eps, x))

# β - transmission rate
# λ - infection rate
# γ - asymp recovery rate
# δ - infect recovery rate
# κ - death rate
# ψ - cost of infection
# σ - z distribution shape
# ρ - activity inattention

# zi - quarantine of infected
# zb - lockdown severity
# zc - lockdown cutoff
# kz - killzone threshhold

##
## simulation
##

# log(z) ~ N(μ, σ**2)
def actout(cut, μ, σ):
    avg = np.exp(μ+0.5*σ**2)
    lcut = log(cut)
    act = 1 - ndtr((lcut-μ)/σ)
    out = avg*ndtr((μ+σ**2-lcut)/σ)
    return act, out

# continuous bounded ramp-up
def smoothstep(x):
    return np.where(x > 0, np.where(x < 1, 3*x**2 - 2*x**3, 1), 0)

# rapid die-off around zero
def killzone(x, k, eps=1e-6):
    return smoothstep(1e6*x/(2*(k+eps)))

# core SIR model
def sir(par, st, tv):
    # params
    β = par['β']
    λ = par['λ']
    γ = par['γ']
    δ = par['δ']
    κ = par['κ']
    ψ = par['ψ']
    σ = par['σ']
    ρ = par['ρ']
    ϝ = par['ϝ']
    zi = par['zi']
    p0 = par['p0']
    pr = par['pr']
    β0 = par['β0']
    βr = par['βr']
    ψ0 = par['ψ0']
    ψr = par['ψr']

    # current state
    s = st['s']
    a = st['a']
    i = st['i']
    r = st['r']
    d = st['d']
    c = st['c']
    ka = st['ka']
    ki = st['ki']
    e = st['e']
    t = st['t']

    # impulse
    im = tv['im']

    # policy
    zb = tv['zb']
    zc = tv['zc']
    kz = tv['kz']
    vx = tv['vx']

    # realized policy
    zb1 = killzone(a+i, zc)*zb
    zi1 = np.maximum(zi, zb1)

    # derived z mean
    μ = -0.5*σ**2

    # time varying params
    p = p0 + (1-p0)*smoothstep(pr*t)
    βs = 1 - β0*smoothstep(βr*t)
    ψs = ψ0 + (1-ψ0)*smoothstep(ψr*t)

    # effective params
    β1 = βs*β
    ψ1 = ψs*ψ

    # exogenous excursions
    iact, iout = actout(zi1, μ, σ)
    ract, rout = actout(zb1, μ, σ)

    # endogenous excursions
    prob = β1*(e*a+iact*i)
    zcut = prob*ψ1
    pcut = np.maximum(zb1, zcut)
    sact, sout = actout(pcut, μ, σ)

    # total act/out rates
    act = sact*(s+a) + iact*i + ract*r
    out = sout*(s+a) + iout*i + rout*r

    # flows
    f_sa = prob*sact*s
    f_sr = vx*s
    f_ai = λ*a
    f_ar = γ*a
    f_ir = δ*i
    f_id = κ*i

    # differentials
    ds = - f_sa - f_sr
    da = f_sa - f_ai - f_ar
    di = f_ai - f_ir - f_id
    dr = f_ar + f_ir + f_sr
    dd = f_id
    dc = p*f_ai
    dka = f_sa
    dki = f_ai
    de = ρ*(sact-e)
    dt = 1

    # discrete jumps
    im1 = im/p
    js = -(1+ϝ)*im1
    ja = ϝ*im1
    ji = im1
    jr = 0
    jd = 0
    jc = im
    jka = ϝ*im1
    jki = im1
    je = 0
    jt = 0

    # updates
    sp = s + ds + js
    ap = a + da + ja
    ip = i + di + ji
    rp = r + dr + jr
    dp = d + dd + jd
    cp = c + dc + jc
    kap = ka + dka + jka
    kip = ki + dki + jki
    ep = e + de + je
    tp = t + dt + jt

    # da kill zone
    zz = np.where(kz > 0, killzone(ap+ip, kz), 1)
    ap = zz*ap
    ip = zz*ip

    # new state
    stp = {
        's': sp,
        'a': ap,
        'i': ip,
        'r': rp,
        'd': dp,
        'c': cp,
        'ka': kap,
        'ki': kip,
        'e': ep,
        't': tp,
    }

    # save stats
    xt = stp.copy()
    xt['act'] = act
    xt['out'] = out
    xt['zb1'] = zb1
    xt['βs'] = βs
    xt['ψs'] = ψs
    xt['p'] = p

    return stp, xt

# iterate SIR for path
def gen_path(par, pol, st0, imp, T, K):
    tv = {
        'zb': pol['zb']*np.ones((T, 1)),
        'zc': pol['zc']*np.ones((T, 1)),
        'kz': pol['kz']*np.ones((T, 1)),
        'vx': pol['vx']*np.ones((T, 1)),
        'im': imp,
    }

    sf = partial(sir, par)
    last, path = lax.scan(sf, st0, tv)

    return path, last

# null state
def zero_state(K):
    return {
        's': np.ones(K),
        'a': np.zeros(K),
        'i': np.zeros(K),
        'r': np.zeros(K),
        'd': np.zeros(K),
        'c': np.zeros(K),
        'ka': np.zeros(K),
        'ki': np.zeros(K),
        'e': np.ones(K),
        't': 0,
    }

# compiled simulator
gen_jit = jax.jit(gen_path, static_argnums=(4, 5))

# default policy
pol0 = {
    'zb': 0.0,
    'zc': 0.0,
    'kz': 0.0,
    'vx': 0.0,
}

# simple interface
def simulate_path(par, pol={}, st0=None, imp=None, K=10, T=365, locs=None, date='2020-02-01', frame=True):
    if st0 is None:
        st0 = zero_state(K)
    if imp is None:
        imp = np.zeros((T, K))

    pol = {**pol0, **pol}
    sim, last = gen_jit(par, pol, st0, imp, T, K)

    return sim, last


if __name__ == "__main__":
    import numpy as np0

    # params/default.toml, as tools.load_args returns it
    par = {k: np0.float32(v) for k, v in {
        'β': 0.5, 'γ': 0.1, 'λ': 0.05, 'δ': 0.07, 'κ': 0.0005, 'ϝ': 10.0,
        'ψ': 500.0, 'σ': 0.3, 'ρ': 0.15, 'zi': 1.5, 'p0': 0.1, 'pr': 0.01,
        'β0': 0.3, 'βr': 0.03, 'ψ0': 1.0, 'ψr': 0.03,
    }.items()}
    K, T = 10, 365
    imp = np.zeros((T, K)).at[10, :].set(1e-4)

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    sim1, last1 = simulate_path(par, imp=imp, K=K, T=T)
    n1 = len(compiles)
    sim2, last2 = simulate_path(par, pol={'zb': 0.8, 'zc': 1e-3}, imp=imp, K=K, T=T)
    assert len(compiles) == n1, (n1, len(compiles))
    tot = last1['s'] + last1['a'] + last1['i'] + last1['r'] + last1['d']
    assert np.allclose(tot, 1.0, atol=1e-3), tot
    assert np.all(np.isfinite(sim2['c']))
    assert sim1['c'].shape == (T, K)
    sim3, _ = simulate_path(par, imp=imp[:200], K=K, T=200)
    assert sim3['c'].shape == (200, K)
    print("ok", float(last1['c'].mean()), float(last2['c'].mean()))
