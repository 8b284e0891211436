# source: https://github.com/patrick-kidger/optimistix/blob/v0.1.0/docs/examples/interactive.ipynb
#   (the example's two code cells, as published)
# observed on jax 0.10.2 CPU (optimistix 0.1.0, equinox 0.13.8): runs clean and finds the
#   root near 0.9614 with both solvers. `solve` wraps `solver.step` and `solver.terminate`
#   in a fresh eqx.filter_jit(eqx.Partial(...)) on every call, but filter_jit keys its
#   compilation cache on the wrapped callable's static structure, not on the wrapper object,
#   so a second solve with the same solver traces nothing new (the __main__ block counts
#   traces). The `while not done` loop and the `!=` on the result run outside jit, on
#   concrete arrays. Added: the __main__ block.
# gap: per-call-recompile
import equinox as eqx  # https://github.com/patrick-kidger/equinox
import jax
import jax.numpy as jnp
import optimistix as optx


# Seek `y` such that `y - tanh(y + 1) = 0`.
@eqx.filter_jit
def fn(y, args):
    out = y - jnp.tanh(y + 1)
    aux = None
    return out, aux


solver = optx.Bisection(rtol=1e-3, atol=1e-3)
# The initial guess for the solution
y = jnp.array(0.0)
# Any auxiliary information to pass to `fn`.
args = None
# The interval to search over. Required for `optx.Bisection`.
options = dict(lower=-1, upper=1)
# The shape+dtype of the output of `fn`
f_struct = jax.ShapeDtypeStruct((), jnp.float32)
aux_struct = None
# Any Lineax tags describing the structure of the Jacobian matrix d(fn)/dy.
# (In this case it's just a 1x1 matrix, so these don't matter.)
tags = frozenset()


def solve(y, solver):
    # These arguments are always fixed throughout interactive solves.
    step = eqx.filter_jit(
        eqx.Partial(solver.step, fn=fn, args=args, options=options, tags=tags)
    )
    terminate = eqx.filter_jit(
        eqx.Partial(solver.terminate, fn=fn, args=args, options=options, tags=tags)
    )

    # Initial state before we start solving.
    state = solver.init(fn, y, args, options, f_struct, aux_struct, tags)
    done, result = terminate(y=y, state=state)

    # Alright, enough setup. Let's do the solve!
    while not done:
        print(f"Evaluating point {y} with value {fn(y, args)[0]}.")
        y, state, aux = step(y=y, state=state)
        done, result = terminate(y=y, state=state)
    if result != optx.RESULTS.successful:
        print(f"Oh no! Got error {result}.")
    y, _, _ = solver.postprocess(fn, y, aux, args, options, state, tags, result)
    print(f"Found solution {y} with value {fn(y, args)[0]}.")


solve(y, solver)

best_so_far_solver = optx.BestSoFarRootFinder(solver)
solve(y, best_so_far_solver)


if __name__ == "__main__":
    events = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: events.append(name)
    )
    solve(y, solver)
    solve(y, best_so_far_solver)
    assert events.count("/jax/core/compile/jaxpr_trace_duration") == 0, events
