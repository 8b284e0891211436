# source: https://github.com/matomatical/hijax/blob/a0ba9f79881b64667fc4c3844fa97114bc9fe5db/solutions00/eca2_jit.py
#   (course code: "Hi, JAX!" by Matthew Farrugia-Roberts, lecture 00, the elementary
#   cellular automaton ported to JAX and jitted)
# observed on jax 0.10.2 CPU: jax.jit(simulate, static_argnames=["width", "num_steps"])
#   traces `rule` (jnp.uint8 and jnp.unpackbits of a tracer are fine) and keeps width and
#   num_steps static, so jnp.zeros(width), state.at[width//2] and range(num_steps-1) see
#   Python ints; the second call reuses the compilation, and the states equal those of the
#   unjitted simulate. tyro, matthewplotlib and PIL are not installed: `tyro.cli(main)` is
#   replaced by a call of main(), and `mp` by a stand-in whose image() returns a string;
#   the PIL import is dropped (save_image stays False). Added: the checks in __main__.
# gap: exemption-vs-JAX
"""
Lecture 00: Hi, JAX! How's life?

Demonstration: Port an elementary cellular automaton simulator from NumPy to
JAX.

Learning objectives:

1. Introduction to jax.numpy (jnp)
2. First look at some JAX function transformations (jit, vmap)
3. Exploration of performance aspects of NumPy, JAX, JIT
"""

import time
import numpy as np
import jax
import jax.numpy as jnp
from jaxtyping import Array, UInt8, Bool


class mp:
    # stand-in for matthewplotlib (not installed)
    @staticmethod
    def image(pixels):
        return "\n".join("".join("#" if v < 0.5 else "." for v in row) for row in pixels.tolist())


def main(
    rule: int = 110,
    width: int = 80,
    num_steps: int = 80,
    print_image: bool = True,
    save_image: bool = False,
):
    start_time = time.perf_counter()
    compiled_simulate = jax.jit(
        simulate,
        static_argnames=["width", "num_steps"],
    )
    states = compiled_simulate(
        rule=rule,
        width=width,
        num_steps=num_steps,
    )
    end_time = time.perf_counter()
    print("compilation complete!")
    print(f"time taken {end_time - start_time:.5f} seconds")

    start_time = time.perf_counter()
    states = compiled_simulate(
        rule=rule,
        width=width,
        num_steps=num_steps,
    ).block_until_ready()
    end_time = time.perf_counter()
    print("simulation complete!")
    print(f"time taken {end_time - start_time:.5f} seconds")

    if print_image:
        print(mp.image((1.2 - states) / 1.2))

    if save_image:
        print("rendering to 'output.png'...")
        numpy_states = np.asarray(states)
        Image.fromarray(255 - 255 * numpy_states).save('output.png')


def simulate(
    rule: UInt8[Array, ""],
    width: int,
    num_steps: int,
) -> UInt8[Array, "num_steps width"]:
    # parse rule
    rule_uint8 = jnp.uint8(rule)
    # print(f"rule: {rule_uint8:3d} (0b{rule_uint8:08b})")
    
    rule_bits = jnp.unpackbits(rule_uint8, bitorder='little')
    # print("bits:", rule_bits)
    
    rule_table = rule_bits.reshape(2,2,2)
    # for i in range(2):
    #     for j in range(2):
    #         for k in range(2):
    #             print(f"rule_table[{i},{j},{k}] = {rule_table[i,j,k]}")
    
    # initialise state
    state: UInt8[Array, "width"]
    state = jnp.zeros(width, dtype=jnp.uint8)
    state = state.at[width//2].set(1)

    # simulate
    states = [state]
    for t in range(num_steps-1):
        state_wrapped: UInt8[Array, "width+2"]
        state_wrapped = jnp.pad(state, 1, mode='wrap')
        state = rule_table[
            state_wrapped[0:-2],
            state_wrapped[1:-1],
            state_wrapped[2:],
        ]
        states.append(state)
    
    return jnp.stack(states)


if __name__ == "__main__":
    main()
    compiled = jax.jit(simulate, static_argnames=["width", "num_steps"])
    states = compiled(rule=110, width=80, num_steps=80)
    assert states.shape == (80, 80)
    assert (states == simulate(rule=110, width=80, num_steps=80)).all()
    compiled(rule=30, width=80, num_steps=80)
    assert compiled._cache_size() == 1
