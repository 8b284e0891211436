# source: https://github.com/Trophime/magnet-diffrax/blob/35248b5bbb4eb8b1b1ef930e038e3861088d1006/magnet_diffrax/rlcircuitpid.py
#   (with magnet_diffrax/pid_controller.py and the diffeqsolve call of magnet_diffrax/main.py's run_simulation, same commit)
# observed on jax 0.10.2 CPU: diffeqsolve (an equinox filter_jit) takes ODETerm(circuit.vector_field), a bound method of
#   a plain Python object, as a static leaf hashed by its object, so the trace of vector_field is cached per circuit and
#   reads circuit.pid_controller once. After circuit.update_pid_controller(new_controller) (the author's method, exercised
#   by tests/test_rlcircuitpid.py) the same circuit solves again with the old gains: the final current stays 2.7713
#   (old controller's) while a fresh circuit with the new controller gives 2.9017.
# gap: stale-state-attributes
# added/changed: the CSV loaders, print_configuration, copy, region add/remove/update, the coupled-circuit code and the
#   argparse driver trimmed; the reference current comes from the author's use_default_reference() (no CSV); main.py's
#   diffeqsolve call is wrapped in run_simulation(circuit, ...) without its prints and plotting; time_end 5.0 -> 3.0 and
#   time_step 0.001 -> 0.01 for CPU; the __main__ block is added.
import jax
import jax.numpy as jnp
import diffrax
from typing import Tuple, Dict, Optional
from dataclasses import dataclass


@dataclass
class PIDParams:
    """Data class to hold PID parameters for a specific current region"""

    Kp: float
    Ki: float
    Kd: float

    def __post_init__(self):
        """Validate PID parameters"""
        if self.Kp < 0 or self.Ki < 0 or self.Kd < 0:
            raise ValueError("PID parameters must be non-negative")


@dataclass
class RegionConfig:
    """Configuration for a current region with PID parameters and threshold"""

    params: PIDParams
    threshold: Optional[float] = (
        None  # Upper bound for this region (None for highest region)
    )


class PIDController:
    """
    Dictionary-based Adaptive PID Controller with flexible region definitions
    """

    def __init__(self, regions: Dict[str, RegionConfig] = None):
        if regions is None:
            # Create default regions
            regions = {
                "low": RegionConfig(PIDParams(10.0, 5.0, 0.1), threshold=60.0),
                "medium": RegionConfig(PIDParams(15.0, 8.0, 0.05), threshold=800.0),
                "high": RegionConfig(PIDParams(25.0, 12.0, 0.02)),
            }

        self.regions = regions

        # Pre-compute JAX-compatible arrays for efficient region selection
        self._setup_jax_arrays()

    def _setup_jax_arrays(self):
        """Setup JAX-compatible arrays for efficient region selection"""
        # Create ordered lists of thresholds and parameters
        self.region_names = list(self.regions.keys())

        # Extract thresholds (use large value for region without threshold)
        thresholds = []
        kp_values = []
        ki_values = []
        kd_values = []

        for name in self.region_names:
            config = self.regions[name]
            # Use a very large threshold for the region without threshold
            threshold = config.threshold if config.threshold is not None else 1e10
            thresholds.append(threshold)
            kp_values.append(config.params.Kp)
            ki_values.append(config.params.Ki)
            kd_values.append(config.params.Kd)

        # Convert to JAX arrays for efficient computation
        self.thresholds = jnp.array(thresholds)
        self.kp_values = jnp.array(kp_values)
        self.ki_values = jnp.array(ki_values)
        self.kd_values = jnp.array(kd_values)

    def get_pid_parameters(self, i_ref: float) -> Tuple[float, float, float]:
        """
        Get PID parameters based on reference current magnitude (JAX-compatible)
        """
        abs_i_ref = jnp.abs(i_ref)

        # Find the first region where current is below threshold
        # This creates a boolean mask and uses argmax to find first True
        below_threshold = abs_i_ref < self.thresholds
        region_idx = jnp.argmax(below_threshold)

        # Extract parameters using the region index
        Kp = self.kp_values[region_idx]
        Ki = self.ki_values[region_idx]
        Kd = self.kd_values[region_idx]

        return Kp, Ki, Kd


def create_default_pid_controller() -> PIDController:
    regions = {
        "low": RegionConfig(PIDParams(10.0, 5.0, 0.1), threshold=60.0),
        "medium": RegionConfig(PIDParams(15.0, 8.0, 0.05), threshold=800.0),
        "high": RegionConfig(PIDParams(25.0, 12.0, 0.02)),
    }
    return PIDController(regions)


def create_adaptive_pid_controller(
    # Low current gains (more aggressive for small signals)
    Kp_low: float = 20.0,
    Ki_low: float = 15.0,
    Kd_low: float = 0.1,
    # Medium current gains (balanced)
    Kp_medium: float = 12.0,
    Ki_medium: float = 8.0,
    Kd_medium: float = 0.05,
    # High current gains (more conservative for stability)
    Kp_high: float = 8.0,
    Ki_high: float = 5.0,
    Kd_high: float = 0.02,
    # Thresholds
    low_threshold: float = 60.0,
    high_threshold: float = 800.0,
) -> PIDController:
    regions = {
        "low": RegionConfig(PIDParams(Kp_low, Ki_low, Kd_low), threshold=low_threshold),
        "medium": RegionConfig(
            PIDParams(Kp_medium, Ki_medium, Kd_medium), threshold=high_threshold
        ),
        "high": RegionConfig(PIDParams(Kp_high, Ki_high, Kd_high)),
    }
    return PIDController(regions)


class RLCircuitPID:
    """RL Circuit with Adaptive PID Controller and variable resistance from CSV"""

    def __init__(
        self,
        R: float = 1.0,
        L: float = 0.1,
        pid_controller: PIDController = None,
        temperature: float = 25.0,
        circuit_id: str = None,  # NEW: Circuit identifier
    ):
        self.L = L
        self.temperature = temperature

        # Set circuit ID
        self.circuit_id = circuit_id

        # Initialize PID controller
        self.pid_controller = pid_controller

        self.R_constant = R
        self.use_variable_resistance = False

    def use_default_reference(self):
        """Use default step reference current"""
        self.use_csv_data = False

        @jax.jit
        def default_reference(t):
            return jnp.where(
                t < 0.5, 0.0, jnp.where(t < 1.5, 2.0, jnp.where(t < 2.5, 1.0, 3.0))
            )

        self.reference_func = default_reference

    def get_pid_parameters(self, i_ref: float) -> Tuple[float, float, float]:
        """
        Get PID parameters based on reference current magnitude
        Delegates to the PID controller
        """
        return self.pid_controller.get_pid_parameters(i_ref)  # expect: JIT201

    def get_resistance(self, current: float) -> float:
        """Get resistance value based on current and temperature"""
        if self.use_variable_resistance:
            return self.resistance_func(current, self.temperature)
        else:
            return self.R_constant

    def reference_current(self, t: float) -> float:
        """Get reference current at time t"""
        return self.reference_func(t)

    def vector_field(self, t: float, y: jnp.ndarray, args) -> jnp.ndarray:
        """
        Define the system dynamics as a vector field with variable resistance and adaptive PID

        State vector y = [i, integral_error, prev_error]
        """
        i, integral_error, prev_error = y

        # Get current-dependent resistance
        R_current = self.get_resistance(i)

        # Reference current
        i_ref = self.reference_current(t)

        # Get adaptive PID parameters based on reference current
        Kp, Ki, Kd = self.get_pid_parameters(i_ref)

        # Current error
        error = i_ref - i

        # PID control signal (voltage) with adaptive parameters
        derivative_error = error - prev_error

        u = Kp * error + Ki * integral_error + Kd * derivative_error

        # Circuit dynamics: L * di/dt = -R(i,T) * i + u
        di_dt = (-R_current * i + u) / self.L

        # Integral error dynamics
        dintegral_dt = error

        # Store current error for next derivative calculation
        dprev_error_dt = error - prev_error

        return jnp.array([di_dt, dintegral_dt, dprev_error_dt])

    def update_pid_controller(self, pid_controller: PIDController):
        """Update the PID controller"""
        self.pid_controller = pid_controller


def run_simulation(circuit, t0=0.0, t1=3.0, dt=0.01, i0=0.0):
    # Initial conditions [current, integral_error, prev_error]
    i0_ref = circuit.reference_current(t0)

    y0 = jnp.array([i0, 0.0, (i0 - i0_ref)])

    # Create solver
    solver = diffrax.Dopri5()

    # Solve the differential equation
    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(circuit.vector_field),
        solver,
        t0=t0,
        t1=t1,
        dt0=dt,
        y0=y0,
        max_steps=10000,
        stepsize_controller=diffrax.PIDController(rtol=1e-3, atol=1e-4),
        saveat=diffrax.SaveAt(ts=jnp.arange(t0, t1, dt)),
    )
    return sol


if __name__ == "__main__":
    circuit = RLCircuitPID(R=1.5, L=0.1, pid_controller=create_default_pid_controller(),
                           circuit_id="M9Bitters")
    circuit.use_default_reference()
    old = float(run_simulation(circuit).ys[-1, 0])

    # the circuit gets a new controller (tests/test_rlcircuitpid.py::test_update_pid_controller)
    new_controller = create_adaptive_pid_controller()
    circuit.update_pid_controller(new_controller)
    again = float(run_simulation(circuit).ys[-1, 0])

    fresh_circuit = RLCircuitPID(R=1.5, L=0.1, pid_controller=new_controller, circuit_id="M9Bitters")
    fresh_circuit.use_default_reference()
    fresh = float(run_simulation(fresh_circuit).ys[-1, 0])
    print(f"old controller {old:.4f}, after update_pid_controller {again:.4f}, fresh circuit {fresh:.4f}")
    assert again == old, (again, old)
    assert abs(fresh - again) > 1e-2, (fresh, again)
# observed: line 184 reads circuit.pid_controller once per cached trace of vector_field: after update_pid_controller the same circuit's solve still uses the old controller's gains (final current equals the old run's, a fresh circuit with the new controller differs)
