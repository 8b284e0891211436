# source: https://github.com/jaxleyverse/jaxley/blob/675aeb950b061d1a8180b73fcd901b7c01fa760b/jaxley/modules/base.py
#   (the diffusion check at the end of Module.get_all_parameters, removed by jaxley#610
#   "Bugfix: allow ion diffusion to be jitted", which moved it to `.set()`, outside the trace)
# observed on jax 0.10.2 CPU: TracerBoolConversionError at `assert minimal_diffusion > 0`:
#   under a jitted simulation the trainable diffusion parameters are tracers; `np.min` on a
#   tracer defers to the array's own `.min()` and returns a traced minimum (no error there),
#   and the assert then asks the traced comparison for its truth value.
#   Added: imports; a Module stand-in whose get_all_parameters keeps only the quoted tail
#   (the loop over diffusion_states and the axial-conductance step, with a stand-in
#   _compute_axial_conductances); and a jitted caller standing in for jx.integrate under
#   jax.jit with a trainable `axial_diffusion_CaCon_i`.
# gap: types
from typing import Dict

import jax
import jax.numpy as jnp
import numpy as np


class Module:  # stand-in: one compartment chain with calcium diffusion
    def __init__(self):
        self.diffusion_states = ["CaCon_i"]
        self.base = self

    def _compute_axial_conductances(self, params):  # stand-in
        return {"CaCon_i": params["axial_diffusion_CaCon_i"] / params["radius"]}

    def get_all_parameters(self, params: Dict) -> Dict[str, jnp.ndarray]:
        for ion_name in self.diffusion_states:
            minimal_diffusion = np.min(params[f"axial_diffusion_{ion_name}"])
            assert minimal_diffusion > 0, (  # expect: JIT103
                f"The smallest value of `axial_diffusion_{ion_name}` is "
                f"{minimal_diffusion}. We only allow strictly positive values for the "
                f"diffusion. Zero is not allowed either, but you can use very small "
                f"values (e.g. 1e-8)."
            )
        # Compute conductance params and add them to the params dictionary.
        params["axial_conductances"] = self.base._compute_axial_conductances(
            params=params
        )
        return params


cell = Module()


@jax.jit
def simulate(trainable):
    params = {"radius": jnp.ones(4), **trainable}
    return cell.get_all_parameters(params)["axial_conductances"]


simulate({"axial_diffusion_CaCon_i": jnp.full(4, 1e-3)})
