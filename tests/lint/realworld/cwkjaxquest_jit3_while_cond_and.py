# source: https://www.creativeworksofknowledge.com/cwk-quests/jax-quest/jit/3/
# observed on jax 0.10.2 CPU: jax.lax.while_loop traces cond and raises TracerBoolConversionError at the `and` on line 17
# gap: other
# (the page's loop snippet; added: imports, init_val and an initial state dict, a stand-in for the
#  elided `def body(state): ...`, and the `jax.lax.while_loop(cond, body, state0)` call the page implies)
import jax
import jax.numpy as jnp

init_val = jnp.array(1.0)

# 정해진 횟수 — fori_loop
def body(i, x):
    return x + jnp.sin(x * i)
result = jax.lax.fori_loop(0, 100, body, init_val)

# 조건 종료 — while_loop
def cond(state): return state["i"] < 100 and state["err"] > 1e-6  # expect: JIT103
def body(state):
    # stand-in for the page's elided body
    return {"i": state["i"] + 1, "err": state["err"] * 0.5}

state0 = {"i": jnp.array(0), "err": jnp.array(1.0)}

if __name__ == "__main__":
    final = jax.lax.while_loop(cond, body, state0)
    print(final)
