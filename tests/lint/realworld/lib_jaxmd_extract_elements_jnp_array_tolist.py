# source: https://github.com/jax-md/jax-md/blob/98ffaac6b96591dcc217691744a09dfc9d5b3717/jax_md/elasticity.py
#   (extract_elements verbatim and extract_isotropic_moduli without its long docstring, before
#   commit 1823a05 "made extract_elements jittable"; jax_md is not installed, so Array stands
#   in for jax_md.util.Array. The __main__ block applies jax.jit to extract_isotropic_moduli
#   with an isotropic 2d elastic modulus tensor)
# observed on jax 0.10.2 CPU: ConcretizationTypeError at `.tolist()` of the 2d branch: under
#   jit, jnp.array of the constant index table is a tracer, so it has no list to give. The 3d
#   branch builds its indices the same way.
# gap: omnistaging
from typing import Any, Dict, Union

import jax
import jax.numpy as jnp

Array = Any


def extract_elements(C: Array, as_dict: bool=True) -> Union[Dict,Array]:
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
  """
  if C.shape[0] == 2:
    indices = jnp.array([(0, 0, 0, 0),  # tolerate: JIT401
                         (1, 1, 1, 1),
                         (0, 1, 0, 1),
                         (0, 0, 1, 1),
                         (0, 0, 0, 1),
                         (0, 1, 1, 1)]).transpose().tolist()  # expect: JIT401
    clist = C[ tuple(indices) ] 
    if as_dict==True:
      names = ['cxxxx','cyyyy','cxyxy','cxxyy','cxxxy','cyyxy']
      return dict(zip(names, clist))
    else:
      return clist

  elif C.shape[0] == 3:
    indices = jnp.array([(0, 0, 0, 0),  # tolerate: JIT401
                         (1, 1, 1, 1),
                         (2, 2, 2, 2),
                         (1, 2, 1, 2),
                         (0, 2, 0, 2),
                         (0, 1, 0, 1),
                         (1, 1, 2, 2),
                         (0, 0, 2, 2),
                         (0, 0, 1, 1),
                         (0, 0, 1, 2),
                         (0, 0, 0, 2),
                         (0, 0, 0, 1),
                         (1, 1, 1, 2),
                         (0, 2, 1, 1),
                         (0, 1, 1, 1),
                         (1, 2, 2, 2),
                         (0, 2, 2, 2),
                         (0, 1, 2, 2),
                         (0, 2, 1, 2),
                         (0, 1, 1, 2),
                         (0, 1, 0, 2)]).transpose().tolist()  # tolerate: JIT401
    clist = C[ tuple(indices) ] 
    if as_dict:
      names = ['cxxxx','cyyyy','czzzz','cyzyz','cxzxz','cxyxy','cyyzz','cxxzz','cxxyy','cxxyz','cxxxz','cxxxy','cyyyz','cyyxz','cyyxy','czzyz','czzxz','czzxy','cyzxz','cyzxy','cxzxy']
      return dict(zip(names, clist))
    else:
      return clist
  else:
    raise AssertionError('C has wrong shape')

def extract_isotropic_moduli(C: Array) -> Dict:
  """Extracts B, G, M, E and nu from an elastic modulus tensor C."""
  if C.shape[0] == 2:
    cxxxx,cyyyy,cxyxy,cxxyy,cxxxy,cyyxy = extract_elements(C,False)
    B = (cxxxx+cyyyy+2.*cxxyy) / 4.
    G = (4.*cxyxy + cxxxx+cyyyy-2.*cxxyy) / 8.
    M = B + G
    E = 4 * B * G / (B + G)
    nu = (B - G) / (B + G)
    
  elif C.shape[0] == 3:
    cxxxx,cyyyy,czzzz,cyzyz,cxzxz,cxyxy,cyyzz,cxxzz,cxxyy,cxxyz,cxxxz,cxxxy,cyyyz,cyyxz,cyyxy,czzyz,czzxz,czzxy,cyzxz,cyzxy,cxzxy = extract_elements(C,False)
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
  d = jnp.eye(2)
  C = (lam * jnp.einsum('ij,kl->ijkl', d, d)
       + mu * (jnp.einsum('ik,jl->ijkl', d, d) + jnp.einsum('il,jk->ijkl', d, d)))
  print(jax.jit(extract_isotropic_moduli)(C))
