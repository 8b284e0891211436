# source: https://github.com/patrick-kidger/diffrax/pull/356 (the MWE in the description,
#   "This MWE works as expected")
# observed on jax 0.10.2 CPU: runs clean and the progress bar is updated while the jitted
#   while_loop runs: the functions that create, update and close the bar (and write to
#   the `pbars` dict) run on the host through jax.debug.callback at run time, not while
#   tracing; the loop condition `t < t1` is given to lax.while_loop, not to Python.
# gap: exemption-vs-JAX
import jax
import jax.lax as lax
from tqdm import tqdm

@jax.jit
def main(t0, t1):
    init_val = t0
    pbars = {}

    def define_progressbar():
        pbars[0] = tqdm(total=100)

    def update_progressbar(t, t0, t1):
        pbars[0].n = round((t-t0) / (t1-t0) * 100, 1)

    def close_progressbar():
        pbars[0].close()

    def cond_fun(t):
        return t < t1

    def body_fun(t):
        jax.debug.callback(update_progressbar, t=t, t0=t0, t1=t1)
        return t + 0.1

    jax.debug.callback(define_progressbar)
    lax.while_loop(cond_fun, body_fun, init_val)
    jax.debug.callback(close_progressbar)

main(0.0, 100.0)


if __name__ == "__main__":
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        main(0.0, 1.0)
        jax.effects_barrier()
    assert "100" in err.getvalue(), err.getvalue()
