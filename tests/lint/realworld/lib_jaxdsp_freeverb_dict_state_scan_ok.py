# source: https://github.com/khiner/jaxdsp/blob/c82e0b998f987b51e4270851a78ad84e7c8a67ef/jaxdsp/processors/freeverb.py
#   (JAXdsp, differentiable audio processors in JAX: the Freeverb reverb, built from the
#   library's lowpass-feedback comb filter and allpass filter processors)
# observed on jax 0.10.2 CPU: runs clean. Every processor keeps its state in a dict that
#   travels in the lax.scan carry: the jitted tick functions assign into the dicts they were
#   given (`state["buffer"] = ...at[...].set(...)`, `state["buffer_index"] += 1`) and
#   return the carry, which is how the new state leaves the trace; tick_buffer writes the
#   traced room size and damping into the comb filters' param dicts before the scan, and
#   freeverb's tick unrolls Python loops over the constant tuning lists (8 combs and 4
#   allpasses a side). The buffer_index is a traced integer used to index and to update
#   the buffers. Processing the next buffer from the returned carry continues the reverb
#   tail; that call traces once more (the carry now holds arrays where init_state held
#   Python numbers), and the call after it compiles nothing.
# gap: types
# added: jaxdsp/param.py's Param class (its serialize method, which uses the removed
#   jnp.DeviceArray, left out) and the lowpass_filter.py and allpass_filter.py processor
#   modules of the same commit, whose functions are gathered in SimpleNamespace objects
#   standing in for the modules `comb` and `allpass`; the __main__ block.
import types

import jax
import jax.numpy as jnp
from jax import jit, lax


class Param:
    def __init__(
        self, name, default_value=0.0, min_value=0.0, max_value=1.0, log_scale=False
    ):
        self.name = name
        self.default_value = default_value
        self.min_value = min_value
        self.max_value = max_value
        self.log_scale = log_scale

    def from_unit_scale(self, unit_scale_value):
        return self.min_value + unit_scale_value * (self.max_value - self.min_value)

    def to_unit_scale(self, value):
        return (value - self.min_value) / (self.max_value - self.min_value)


# jaxdsp/processors/lowpass_filter.py
# A unity-gain single-pole lowpass filter, as used in the feedback path of
# Freeverb's comb filter: https://ccrma.stanford.edu/~jos/pasp/Lowpass_Feedback_Comb_Filter.html


def comb_init_state(buffer_size=20):
    return {
        "buffer": jnp.zeros(buffer_size),
        "buffer_index": 0,
        "filter_store": 0.0,
    }


@jit
def comb_tick(carry, x):
    params, state = carry

    out = state["buffer"][state["buffer_index"]]
    state["filter_store"] = (
        out * (1 - params["damp"]) + state["filter_store"] * params["damp"]
    )

    state["buffer"] = state["buffer"].at[state["buffer_index"]].set(x + state["filter_store"] * params["feedback"])
    state["buffer_index"] += 1
    state["buffer_index"] %= state["buffer"].size
    return carry, out


@jit
def comb_tick_buffer(carry, X):
    return lax.scan(comb_tick, carry, X)


comb = types.SimpleNamespace(
    NAME="Lowpass Feedback Comb Filter",
    PARAMS=[Param("feedback", 0.0), Param("damp", 0.0)],
    init_state=comb_init_state,
    tick=comb_tick,
    tick_buffer=comb_tick_buffer,
)


# jaxdsp/processors/allpass_filter.py
def allpass_init_state(buffer_size=20):
    return {
        "buffer": jnp.zeros(buffer_size),
        "buffer_index": 0,
        "filter_store": 0.0,
    }


@jit
def allpass_tick(carry, x):
    params, state = carry
    buffer_out = state["buffer"][state["buffer_index"]]
    state["buffer"] = state["buffer"].at[state["buffer_index"]].set(x + buffer_out * params["feedback"])
    state["buffer_index"] += 1
    state["buffer_index"] %= state["buffer"].size
    out = -x + buffer_out
    return carry, out


@jit
def allpass_tick_buffer(carry, X):
    return lax.scan(allpass_tick, carry, X)


allpass = types.SimpleNamespace(
    NAME="Allpass Filter",
    PARAMS=[Param("feedback", 0.0)],
    init_state=allpass_init_state,
    tick=allpass_tick,
    tick_buffer=allpass_tick_buffer,
)


# jaxdsp/processors/freeverb.py
NAME = "Freeverb"
PARAMS = [
    Param("wet", 0.0),
    Param("dry", 1.0),
    Param("width", 0.0),
    Param("damp", 0.0),
    Param("room_size", 0.0, 0.0, 1.2),
]
PRESETS = {
    "flat_space": {
        "wet": 0.3,
        "dry": 0.6,
        "width": 0.5,
        "damp": 0.3,
        "room_size": 1.055,
    },
    "expanding_space": {
        "wet": 0.33,
        "dry": 0.0,
        "width": 0.5,
        "damp": 0.1,
        "room_size": 1.078,
    },
}

fixed_gain = 0.015
scale_wet = 3.0
scale_dry = 2.0
scale_damp = 0.4
scale_room = 0.28
offset_room = 0.7

comb_tunings_l = [1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617]
allpass_tunings_l = [556, 441, 341, 225]
stereo_spread = 23


# comb_tunings_l = [1, 2, 3, 4, 5, 6, 7, 9]
# allpass_tunings_l = [2, 3, 4, 5]


def init_comb_carry(buffer_size):
    return {"feedback": 0.5, "damp": 0.0}, comb.init_state(buffer_size=buffer_size)


def init_allpass_carry(buffer_size):
    return {"feedback": 0.5}, allpass.init_state(buffer_size=buffer_size)


def init_state():
    return {
        "combs_l": [init_comb_carry(buffer_size) for buffer_size in comb_tunings_l],
        "combs_r": [
            init_comb_carry(buffer_size + stereo_spread)
            for buffer_size in comb_tunings_l
        ],
        "allpasses_l": [
            init_allpass_carry(buffer_size) for buffer_size in allpass_tunings_l
        ],
        "allpasses_r": [
            init_allpass_carry(buffer_size + stereo_spread)
            for buffer_size in allpass_tunings_l
        ],
    }


@jit
def tick(carry, x):
    params, state = carry

    x_r, x_l = jnp.broadcast_to(x, (2,))  # handle stereo or mono in
    x_combined = (x_l + x_r) * fixed_gain

    out_l = 0.0
    out_r = 0.0

    # comb filters in parallel
    for i in range(len(comb_tunings_l)):
        state["combs_l"][i], out_comb_l = comb.tick(state["combs_l"][i], x_combined)
        state["combs_r"][i], out_comb_r = comb.tick(state["combs_r"][i], x_combined)
        out_l += out_comb_l
        out_r += out_comb_r
    # allpasses in series
    for i in range(len(allpass_tunings_l)):
        state["allpasses_l"][i], out_l = allpass.tick(state["allpasses_l"][i], out_l)
        state["allpasses_r"][i], out_r = allpass.tick(state["allpasses_r"][i], out_r)

    wet = params["wet"] * scale_wet
    dry = params["dry"] * scale_dry
    wet_1 = wet * (params["width"] / 2 + 0.5)
    wet_2 = wet * ((1 - params["width"]) / 2)

    output_l = out_l * wet_1 + out_r * wet_2 + x_l * dry
    output_r = out_r * wet_1 + out_l * wet_2 + x_r * dry
    return carry, jnp.array([output_l, output_r])


@jit
def tick_buffer(carry, X):
    params, state = carry

    room_size = (params["room_size"] * scale_room) + offset_room
    damp = params["damp"] * scale_damp
    for comb_l in state["combs_l"]:
        comb_l[0]["feedback"] = room_size
        comb_l[0]["damp"] = damp
    for comb_r in state["combs_r"]:
        comb_r[0]["feedback"] = room_size
        comb_r[0]["damp"] = damp

    carry_out, Y = lax.scan(tick, carry, X)
    return carry_out, Y.T


if __name__ == "__main__":
    params = dict(PRESETS["flat_space"])
    state = init_state()
    X = jnp.zeros(2048).at[0].set(1.0)  # an impulse

    carry, Y = tick_buffer((params, state), X)
    assert Y.shape == (2, 2048)
    # the dry impulse comes through at once, the reverb only after the shortest comb delay
    assert jnp.allclose(Y[:, 0], 1.0 * params["dry"] * scale_dry, atol=1e-6)
    assert float(jnp.abs(Y[0, 1:1116]).max()) < 1e-6
    assert float(jnp.abs(Y[0, 1116:]).max()) > 1e-4
    new_params, new_state = carry
    assert int(new_state["combs_l"][0][1]["buffer_index"]) == 2048 % 1116
    assert jnp.allclose(new_state["combs_l"][0][0]["feedback"], 1.055 * scale_room + offset_room)
    # the caller's state is untouched: jit handed tick_buffer copies of the dicts
    assert state["combs_l"][0][1]["buffer_index"] == 0
    assert state["combs_l"][0][0]["feedback"] == 0.5

    # the returned carry holds arrays where init_state held Python numbers, so the first call
    # with it traces once more; from then on the carry's types are fixed
    carry2, Y2 = tick_buffer(carry, jnp.zeros(2048))
    # the tail goes on from the returned carry
    assert float(jnp.abs(Y2).max()) > 1e-5
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)
    carry3, Y3 = tick_buffer(carry2, jnp.zeros(2048))
    assert not compiles

    comb_carry, comb_out = comb.tick_buffer(({"feedback": 0.5, "damp": 0.2}, comb.init_state(4)), X[:16])
    assert jnp.allclose(comb_out[:4], 0.0) and jnp.allclose(comb_out[4], 1.0)
    ap_carry, ap_out = allpass.tick_buffer(({"feedback": 0.5}, allpass.init_state(4)), X[:16])
    assert jnp.allclose(ap_out[0], -1.0) and jnp.allclose(ap_out[4], 1.0)
