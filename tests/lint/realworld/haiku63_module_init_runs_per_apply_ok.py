# source: https://github.com/google-deepmind/dm-haiku/issues/63 (the reporter's example;
#   the maintainers: "this is expected unless you use `jit` somewhere", "The two functions
#   you get back from `hk.transform` are pure functions")
# observed on jax 0.10.2 CPU (dm-haiku 0.0.17): runs clean; without jit, fwd.apply runs
#   forward in Python on every call, so MyModule.__init__ and __call__ print once per
#   apply (eleven times each with init), and x counts up to 10. Current spelling: in 2020
#   `hk.transform` returned an `apply(params, x)` without an rng argument; today that is
#   `hk.without_apply_rng(hk.transform(forward))`.
# gap: exemption-vs-JAX
import haiku as hk


class MyModule(hk.Module):
    def __init__(self):
        super().__init__(name="MyModule")
        print("MyModule.__init__ ran")

    def __call__(self, x):
        print("MyModule.__call__ ran")
        return x + 1


def forward(x):
    return MyModule()(x)


rng = hk.PRNGSequence(420)
fwd = hk.without_apply_rng(hk.transform(forward))
params = fwd.init(next(rng), 1)
x = 0
for _ in range(10):
    x = fwd.apply(params, x)


if __name__ == "__main__":
    import contextlib
    import io

    assert x == 10, x
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        y = 0
        for _ in range(3):
            y = fwd.apply(params, y)
    assert y == 3
    assert out.getvalue().count("MyModule.__call__ ran") == 3, out.getvalue()
