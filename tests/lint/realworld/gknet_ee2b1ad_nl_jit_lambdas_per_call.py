# source: https://github.com/fabiannagel/gknet-benchmarks/blob/ee2b1ad97c02eedc20d933f99f91029aaa677eeb/calculators/lennard_jones/neighbor_list/jaxmd_lennard_jones_neighbor_list.py
# observed on jax 0.10.2 CPU: every call of the calculator (warm_up(), then each calculate()) re-wraps fresh lambdas / quantity.force(...) results in jit, so each call traces and compiles them again; the warm-up compiles nothing that later calls can reuse (fixed in 4f0f249 by jitting the potential once in _initialize_potential)
# gap: per-call-recompile
# stand-ins: Calculator/Result (calculators/calculator.py, reduced), energy.lennard_jones_neighbor_list, quantity.force (as in jax_md: grad of -energy), periodic_general/transform (the repo's periodic_general.py, reduced); jax_md, ase are not installed
# renamed old APIs: `from jax.api import jacfwd, vmap` -> `from jax import jacfwd, vmap`; `from jax.config import config` -> `jax.config`
# omitted: from_ase_atoms (needs ase), pairwise_distances property, __getstate__/__setstate__; added: small inputs and the __main__ block
from __future__ import annotations
from typing import Callable, Optional, Tuple
from types import SimpleNamespace
from dataclasses import dataclass

import numpy as onp
import jax
import jax.numpy as jnp
from jax import grad, random, jit, value_and_grad
from jax import jacfwd, vmap
config = jax.config
config.update("jax_enable_x64", True)


# ---- stand-ins for jax_md / the repo's helpers ----
def transform(box, R):
    return jnp.einsum('ij,...j->...i', box, R)


def periodic_general(box):
    inv_box = jnp.linalg.inv(box)

    def displacement_fn(Ra, Rb, box=box, **kwargs):
        dR = transform(jnp.linalg.inv(box), Ra - Rb)
        dR = jnp.mod(dR + 0.5, 1.0) - 0.5
        return transform(box, dR)
    return displacement_fn, None


def _lennard_jones_neighbor_list(displacement_fn, box, sigma=1.0, epsilon=1.0, r_onset=2.0, r_cutoff=2.5, per_particle=False):
    def neighbor_fn(R):
        d = vmap(vmap(lambda a, b: displacement_fn(a, b), (None, 0)), (0, None))(R, R)
        dist = onp.asarray(jnp.linalg.norm(d, axis=-1))
        n = R.shape[0]
        rows = [onp.where((dist[i] < r_cutoff * sigma) & (onp.arange(n) != i))[0] for i in range(n)]
        width = max(len(r) for r in rows)
        return jnp.array([onp.pad(r, (0, width - len(r)), constant_values=n) for r in rows])

    def energy_fn(R, neighbor=None, box=box, **kwargs):
        Rn = jnp.concatenate([R, jnp.zeros((1, R.shape[1]))])[neighbor]
        d = vmap(vmap(lambda a, b: displacement_fn(a, b, box=box), (None, 0)))(R, Rn)
        r = jnp.sqrt(jnp.sum(d ** 2, axis=-1) + 1e-12)
        mask = (neighbor < R.shape[0]) & (r < r_cutoff * sigma)
        e = 4 * epsilon * ((sigma / r) ** 12 - (sigma / r) ** 6)
        e = 0.5 * jnp.sum(jnp.where(mask, e, 0.0), axis=1)
        return e if per_particle else jnp.sum(e)
    return neighbor_fn, energy_fn


energy = SimpleNamespace(lennard_jones_neighbor_list=_lennard_jones_neighbor_list)
quantity = SimpleNamespace(force=lambda energy_fn: grad(lambda R, *args, **kwargs: -energy_fn(R, *args, **kwargs)))
space = SimpleNamespace(Space=object, Array=jnp.ndarray)


@dataclass
class Result():
    calculator: object
    n: int
    energy: float
    energies: onp.ndarray
    forces: onp.ndarray
    stress: float
    stresses: onp.ndarray


class Calculator:
    def __init__(self, box, n, R, computes_stress):
        self._box = box
        self._n = n
        self._R = R
        self._computes_stress = computes_stress

    @classmethod
    def create_potential(cls, box_size, n, R, *args):
        if R is None or len(R) == 0:
            R = cls._generate_R(cls, n, box_size)
        box = box_size * onp.eye(3)
        return cls(box, n, R, *args)

    def calculate(self):
        return [self._compute_properties()]
# ---- end of stand-ins ----


class JmdLennardJonesNeighborList(Calculator):

    def __init__(self, box: jnp.ndarray, n: int, R: jnp.ndarray, sigma: float, epsilon: float, r_cutoff: float, r_onset: float, stress: bool, stresses: bool, jit: bool, displacement_fn: Optional[Callable]):
        super().__init__(box, n, R, stress)
        self._sigma = sigma
        self._epsilon = epsilon
        self._r_cutoff = r_cutoff
        self._r_onset = r_onset 
        self._stress = stress
        self._stresses = stresses
        self._jit = jit

        # TODO: np.array causes strange indexing errors now and then. migrate everything to jnp.array!
        self._box = jnp.array(self._box)
        self._R = jnp.array(self._R)

        self._displacement_fn, self._properties_fn = self._initialize_potential(displacement_fn, stress)


    @classmethod
    def create_potential(cls, box_size: float, n: int, R_scaled: Optional[jnp.ndarray], sigma: float, epsilon: float, r_cutoff: float, r_onset: float, stress: bool, stresses: bool, jit: bool) -> JmdLennardJonesPair:
        '''Initialize a Lennard-Jones potential from scratch using scaled atomic coordinates. If omitted, random coordinates will be generated.'''
        return super().create_potential(box_size, n, R_scaled, sigma, epsilon, r_cutoff, r_onset, stress, stresses, jit, None)


    @property
    def description(self) -> str:
        return "JAX-MD Neighbor List (stress={}, stresses={}, jit={})".format(self._stress, self._stresses, self._jit)


    def _generate_R(self, n: int, scaling_factor: float) -> jnp.ndarray:
         # TODO: Build a global service to manage and demand PRNGKeys for JAX-based simulations
        key = random.PRNGKey(0)
        key, subkey = random.split(key)
        return random.uniform(subkey, shape=(n, 3)) * scaling_factor


    def _initialize_potential(self, displacement_fn: Optional[Callable], stress: bool) -> Tuple[space.Space, Callable[[space.Array]]]:
        if displacement_fn is None:
            displacement_fn, _ = periodic_general(self._box)
        
        # using an np.array or a list from ASE will cause a strange indexing error
        neighbor_fn, energy_fn = energy.lennard_jones_neighbor_list(displacement_fn, self._box, sigma=self._sigma, epsilon=self._epsilon, r_onset=self._r_onset, r_cutoff=self._r_cutoff, per_particle=True)
        
        if self._jit:
            displacement_fn = jit(displacement_fn)
            energy_fn = jit(energy_fn)

        nbrs = neighbor_fn(self._R)


        def compute_properties_with_stress(deformation: jnp.ndarray, R: space.Array):   
            # 1) Set the box under strain using a symmetrized deformation tensor
            # 2) Override the box in the energy function
            # 3) Derive forces, stress and stresses as gradients of the deformed energy function

            symmetrized_strained_box_fn = lambda deformation: transform(jnp.eye(3) + (deformation + deformation.T) * 0.5, self._box)   
            if self._jit: symmetrized_strained_box_fn = jit(symmetrized_strained_box_fn)  # expect: JIT301

            deformation_energy_fn = lambda deformation, R, *args, **kwargs: energy_fn(R, box=symmetrized_strained_box_fn(deformation), neighbor=nbrs)
            if self._jit: deformation_energy_fn = jit(deformation_energy_fn)  # expect: JIT301

            total_deformation_energy_fn = lambda deformation, R, *args, **kwargs: jnp.sum(deformation_energy_fn(deformation, R, *args, **kwargs))
            if self._jit: total_deformation_energy_fn = jit(total_deformation_energy_fn)  # expect: JIT301
            
            # deformation_force_fn = lambda deformation, R: grad(total_deformation_energy_fn, argnums=1)(deformation, R) * -1
            deformation_force_fn = quantity.force(total_deformation_energy_fn)
            if self._jit: deformation_force_fn = jit(deformation_force_fn)  # expect: JIT301


            # TODO: Why so ugly?
            stress = None
            if self._stress:
                stress_fn = lambda deformation, R, *args, **kwargs: grad(total_deformation_energy_fn, argnums=0)(deformation, R) / jnp.linalg.det(self._box)
                if self._jit: stress_fn = jit(stress_fn)  # expect: JIT301
                stress = stress_fn(deformation, R, neighbor=nbrs)
 
            stresses = None
            if self._stresses:            
                stresses_fn = lambda deformation, R, *args, **kwargs: jacfwd(deformation_energy_fn, argnums=0)(deformation, R) / jnp.linalg.det(self._box)
                if self._jit: stresses_fn = jit(stresses_fn)  # expect: JIT301
                stresses = stresses_fn(deformation, R, neighbor=nbrs)
 

            total_energy = total_deformation_energy_fn(deformation, R, neighbor=nbrs)
            atomwise_energies = deformation_energy_fn(deformation, R, neighbor=nbrs)
            forces = deformation_force_fn(deformation, R, neighbor=nbrs)

            return total_energy, atomwise_energies, forces, stress, stresses


        def compute_properties(R: space.Array) -> Tuple[jnp.ndarray, float, jnp.ndarray]:
            total_energy_fn = lambda R, *args, **kwargs: jnp.sum(energy_fn(R, *args, **kwargs))
            if self._jit: total_energy_fn = jit(total_energy_fn)  # expect: JIT301

            forces_fn = quantity.force(total_energy_fn)
            if self._jit: forces_fn = jit(forces_fn)  # expect: JIT301
        
            total_energy = total_energy_fn(R, neighbor=nbrs)
            atomwise_energies = energy_fn(R, neighbor=nbrs)
            forces = forces_fn(R, neighbor=nbrs)

            return total_energy, atomwise_energies, forces


        if self._stress or self._stresses:
            return displacement_fn, compute_properties_with_stress
        
        return displacement_fn, compute_properties


    def _compute_properties(self) -> Result:
        if self._stress or self._stresses:
            deformation = jnp.zeros_like(jnp.array(self._box))
            total_energy, atomwise_energies, forces, stress, stresses = self._properties_fn(deformation, self._R)
            return Result(self, self._n, total_energy, atomwise_energies, forces, stress, stresses)
        
        total_energy, atomwise_energies, forces = self._properties_fn(self._R)
        return Result(self, self._n, total_energy, atomwise_energies, forces, None, None)

    def warm_up(self):
        if not self._jit:
            raise RuntimeError("Warm-up only implemented for jit=True")
        self._compute_properties()


if __name__ == "__main__":
    import logging, re

    # every tracing-cache miss names the line where the retraced function was defined
    misses = []

    class _Misses(logging.Handler):
        def emit(self, record):
            m = re.search(r"never seen function:\s+\S+ id=\d+ defined at (\S+):(\d+)", record.getMessage())
            if m and m.group(1) == __file__:
                misses.append(int(m.group(2)))

    logging.getLogger("jax").addHandler(_Misses())
    jax.config.update("jax_explain_cache_misses", True)

    src = open(__file__).read().splitlines()
    marker = "# " + "expect: JIT301"
    labelled = [i + 1 for i, l in enumerate(src) if marker in l and "if self._jit" in l]
    # the function each labelled jit wraps is defined on the line above it; quantity.force builds its
    # lambda inside the stand-in, whose line stands for the two deformation/force lines
    force_line = next(i + 1 for i, l in enumerate(src) if l.startswith("quantity = SimpleNamespace"))

    def defined_line(jit_line):
        prev = src[jit_line - 2]
        return force_line if "quantity.force" in prev else jit_line - 1

    for stress in (True, False):
        calc = JmdLennardJonesNeighborList.create_potential(4.0, 12, None, 1.0, 1.0, 1.5, 1.2, stress, stress, True)
        calc.warm_up()
        for call in range(2):
            misses.clear()
            calc.calculate()
            retraced = set(misses)
            for line in labelled:
                in_stress_path = line < src.index("        def compute_properties(R: space.Array) -> Tuple[jnp.ndarray, float, jnp.ndarray]:") + 1
                if in_stress_path == stress:
                    assert defined_line(line) in retraced, (line, sorted(retraced))
    print("every calculate() after warm_up retraced the jitted lambdas of lines", labelled)
# observed: line 148 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
# observed: line 151 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
# observed: line 154 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
# observed: line 158 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
# observed: line 165 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
# observed: line 171 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
# observed: line 184 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
# observed: line 187 the function jitted here is retraced (never-seen function, defined just above / in quantity.force) on every calculate() after warm_up(), in both calls checked
