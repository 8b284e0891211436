# source: https://github.com/jax-md/jax-md/blob/1823a054e19524973fbda8d8747f9da54a1eadf9/jax_md/elasticity.py
#   (_extract_elements and extract_elements verbatim and extract_isotropic_moduli without its
#   long docstring, at commit 1823a05 "made extract_elements jittable"; jax_md is not
#   installed, so Array stands in for jax_md.util.Array. The __main__ block applies jax.jit to
#   extract_isotropic_moduli with isotropic 2d and 3d elastic modulus tensors)
# observed on jax 0.10.2 CPU: runs clean: the index tables are Python lists, the branches
#   test static shapes and the static as_dict, and the jitted results match eager ones.
# gap: exemption-vs-JAX
from functools import partial
from typing import Any, Dict

import jax
import jax.numpy as jnp
from jax import jit

Array = Any


@partial(jit,static_argnums=(1,))
def _extract_elements(C, as_dict):
  """ Convert an elastic modulus tensor into a list of 6 (21) unique elements
        in 2 (3) dimensions
      
      in 2d, these are:
      cxxxx,cyyyy,cxyxy,cxxyy,cxxxy,cyyxy

      in 3d, these are:
      cxxxx,cyyyy,czzzz,cyzyz,cxzxz,cxyxy,cyyzz,cxxzz,cxxyy,cxxyz,cxxxz,cxxxy,cyyyz,cyyxz,cyyxy,czzyz,czzxz,czzxy,cyzxz,cyzxy,cxzxy

  Args:
    C: A previously calculated elastic modulus tensor represented as an 
      array of shape (spatial_dimension,spatial_dimension,spatial_dimension,
      spatial_dimension), where spatial_dimension is either 2 or 3. C must 
      satisfy both the major and minor symmetries, but this is not checked.
    as_dict: boolean. If true, return a dictionary with interpretable keys.
      If false, return an array that follows an internal convention.
  """
  if C.shape[0] == 2:
    indices = ( [0, 1, 0, 0, 0, 0],
                [0, 1, 1, 0, 0, 1],
                [0, 1, 0, 1, 0, 1],
                [0, 1, 1, 1, 1, 1])
    clist = C[ indices ] 
    if as_dict==True:
      names = ['cxxxx','cyyyy','cxyxy','cxxyy','cxxxy','cyyxy']
      return dict(zip(names, clist))
    else:
      return clist

  elif C.shape[0] == 3:
    indices = ( [0, 1, 2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
                [0, 1, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 1, 2, 1, 2, 2, 1, 2, 1, 1],
                [0, 1, 2, 1, 0, 0, 2, 2, 1, 1, 0, 0, 1, 1, 1, 2, 2, 2, 1, 1, 0],
                [0, 1, 2, 2, 2, 1, 2, 2, 1, 2, 2, 1, 2, 1, 1, 2, 2, 2, 2, 2, 2])
    clist = C[ indices ] 
    if as_dict:
      names = ['cxxxx','cyyyy','czzzz','cyzyz','cxzxz','cxyxy','cyyzz','cxxzz','cxxyy','cxxyz','cxxxz','cxxxy','cyyyz','cyyxz','cyyxy','czzyz','czzxz','czzxy','cyzxz','cyzxy','cxzxy']
      return dict(zip(names, clist))
    else:
      return clist
  else:
    raise AssertionError('C has wrong shape')

def extract_elements(C):
  return _extract_elements(C,True)

def extract_isotropic_moduli(C: Array) -> Dict:
  """Extracts B, G, M, E and nu from an elastic modulus tensor C."""
  if C.shape[0] == 2:
    cxxxx,cyyyy,cxyxy,cxxyy,cxxxy,cyyxy = _extract_elements(C,False)
    B = (cxxxx+cyyyy+2.*cxxyy) / 4.
    G = (4.*cxyxy + cxxxx+cyyyy-2.*cxxyy) / 8.
    M = B + G
    E = 4 * B * G / (B + G)
    nu = (B - G) / (B + G)
    
  elif C.shape[0] == 3:
    cxxxx,cyyyy,czzzz,cyzyz,cxzxz,cxyxy,cyyzz,cxxzz,cxxyy,cxxyz,cxxxz,cxxxy,cyyyz,cyyxz,cyyxy,czzyz,czzxz,czzxy,cyzxz,cyzxy,cxzxy = _extract_elements(C,False)
    B = (cxxxx + 2*cxxyy + 2*cxxzz + cyyyy + 2*cyyzz + czzzz) / 9.
    G = (cxxxx - cxxyy - cxxzz + 3*cxyxy + 3*cxzxz + cyyyy - cyyzz + 3*cyzyz + czzzz) / 15.
    M = B + 4 * G / 3
    E = 9 * B * G / (3 * B + G)
    nu = (3 * B - 2 * G) / (2 * (3 * B + G))
  else:
    raise AssertionError('C has incorrect shape')

  return {'B':B, 'G':G, 'M':M, 'E':E, 'nu':nu}


if __name__ == "__main__":
  lam, mu = 1.0, 0.5
  for dim in (2, 3):
    d = jnp.eye(dim)
    C = (lam * jnp.einsum('ij,kl->ijkl', d, d)
         + mu * (jnp.einsum('ik,jl->ijkl', d, d) + jnp.einsum('il,jk->ijkl', d, d)))
    jitted = jax.jit(extract_isotropic_moduli)(C)
    eager = extract_isotropic_moduli(C)
    assert all(jnp.allclose(jitted[k], eager[k]) for k in eager), (jitted, eager)
    print(dim, jitted, extract_elements(C))
