# source: https://github.com/BYUCamachoLab/simphony/issues/88 (ClassicalSim and the simulation
#   devices at the commit the report links,
#   https://github.com/BYUCamachoLab/simphony/blob/5159848376a25114ecd4d2f0d9aa4c86a96bf2e1/simphony/simulation/classical.py,
#   simdevices.py and simulation.py, with JAX installed so `jnp` is jax.numpy; the
#   `Circuit` class is a stand-in with two optical ports and an identity S-matrix, and the
#   module level runs one simulation with one laser and one detector)
# observed on jax 0.10.2 CPU: TypeError "JAX arrays are immutable and do not support in-place
#   item assignment" at `input_source[:, laser_idx] = (`: input_source is jnp.zeros.
# gap: types
from dataclasses import dataclass

import jax
import jax.numpy as jnp

JAX_AVAILABLE = True


class Circuit:  # stand-in for simphony.circuit.Circuit
    def __init__(self):
        self._oports = ["o0", "o1"]
        self._eports = []
        self.sim_devices = []

    def s_params(self, wl):
        return jnp.broadcast_to(jnp.eye(len(self._oports)), (len(wl), 2, 2))


class SimDevice:
    """Base class for all sources."""

    def __init__(self, ckt, ports: list) -> None:
        for p in ports:
            if (p not in ckt._oports) and (p not in ckt._eports):
                raise ValueError(f"Port {p} is not available on the circuit.")
        ckt.sim_devices.append(self)
        self.ckt = ckt
        self.ports = ports


class Laser(SimDevice):
    """Laser source."""

    def __init__(self, ckt, port, power=1, phase=0, mod_function=None) -> None:
        super().__init__(ckt, [port])
        self.power = power
        self.mod_function = mod_function
        self.phase = phase


class Detector(SimDevice):
    """Detector."""

    def __init__(self, ckt, port, responsivity=1.0) -> None:
        super().__init__(ckt, [port])
        self.responsivity = responsivity


class Simulation:
    """Base class for simphony simulations."""

    def __init__(self, ckt: Circuit, wl: jnp.ndarray) -> None:
        self.ckt = ckt
        self.wl = wl

    def run(self):
        """Run the simulation."""
        raise NotImplementedError


class SimulationResult:
    pass


@dataclass
class ClassicalResult(SimulationResult):
    """Classical simulation results."""

    s_params: jnp.ndarray
    input_source: jnp.ndarray
    output: jnp.ndarray
    detectors: dict
    wl: jnp.ndarray


class ClassicalSim(Simulation):
    """Classical simulation."""

    def __init__(self, ckt: Circuit, wl: jnp.ndarray) -> None:
        """Initialize the classical simulation.

        Parameters
        ----------
        ckt : Circuit
            The circuit to simulate.
        wl : jnp.ndarray
            The array of wavelengths to simulate (in microns).
        """
        super().__init__(ckt, wl)

        # find the index of all laser simdevices
        self.laser_dict = {}
        for laser in ckt.sim_devices:
            if isinstance(laser, Laser):
                laser_idx = ckt._oports.index(laser.ports[0])
                self.laser_dict[laser] = laser_idx

        # find the index of all detector simdevices
        self.detector_dict = {}
        for detector in ckt.sim_devices:
            if isinstance(detector, Detector):
                detector_idx = ckt._oports.index(detector.ports[0])
                self.detector_dict[detector] = detector_idx

    def run(self) -> ClassicalResult:
        """Run the classical simulation."""

        # Get the S-matrix for the circuit
        # TODO: Switch to calling cached ``._s(wl)`` method
        S = self.ckt.s_params(self.wl)

        # Get input array from all lasers
        input_source = jnp.zeros(
            (len(self.wl), len(self.ckt._oports)), dtype=jnp.complex128
        )
        for laser, laser_idx in self.laser_dict.items():
            if laser.mod_function is None:
                input_source[:, laser_idx] = (  # expect: JIT501
                    jnp.ones_like(self.wl)
                    * jnp.sqrt(laser.power)
                    * jnp.exp(1j * laser.phase)
                )
            else:
                input_source[:, laser_idx] = laser.mod_function(self.wl) * jnp.sqrt(  # tolerate: JIT501
                    laser.power
                )

        # Calculate the output from all detectors
        output = (S @ input_source[:, :, None])[:, :, 0]
        # TODO: This could be optimized by only using the rows corresponding to
        # the detectors

        result = ClassicalResult(
            s_params=S,
            input_source=input_source,
            output=output,
            detectors=self.detector_dict,
            wl=self.wl,
        )

        return result


ckt = Circuit()
laser = Laser(ckt, "o0")
detector = Detector(ckt, "o1")
sim = ClassicalSim(ckt, jnp.linspace(1.5, 1.6, 5))
result = sim.run()
