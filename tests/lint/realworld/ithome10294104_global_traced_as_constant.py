# source: https://ithelp.ithome.com.tw/articles/10294104
# observed on jax 0.10.2 CPU: silent; the second call still returns 99.9 after g1 was set to 1.0, and g2 ends up a tracer
# observed: line 15 stale global g1 baked in as the constant 0.0 at trace time (fresh value would give 100.9)
# observed: line 35 after the jitted call the global g2 holds a leaked JitTracer, not 99.9
# gap: stale-state-attributes
# (added: imports, the __main__ checks; the blog's second example is cut off in the stored copy after
#  "print(f'Before 1st call, g2 = {g2}')", its call and the print of g2 are completed as in the blog's description;
#  the blog reuses the name impure_jit_fun for the second jitted function, renamed impure_jit_fun2 here so __main__ can call the first)
import jax

g1 = 0.


def impure_uses_globals(x):
    return x + g1  # expect: JIT201


impure_jit_fun = jax.jit(impure_uses_globals)

# 1st call, at this moment g1 = 0
print(f'1st call: {impure_jit_fun(99.9)}')
print('===========================================')
# not change g1 to 1.
g1 = 1.
print(f'Currently g1 = {g1}')
print('===========================================')
# 2nd call, at this moment g1 = 0
print(f'2nd call: {impure_jit_fun(99.9)}')

g2 = 0.


def impure_saves_global(x):
    global g2
    g2 = x  # expect: JIT202
    return x


impure_jit_fun2 = jax.jit(impure_saves_global)
print(f'Before 1st call, g2 = {g2}')
print(f'1st call: {impure_jit_fun2(99.9)}')
print(f'After 1st call, g2 = {g2}')


if __name__ == "__main__":
    stale = float(impure_jit_fun(99.9))
    fresh = float(impure_uses_globals(99.9))
    assert abs(stale - 99.9) < 1e-3 and abs(fresh - 100.9) < 1e-3, (stale, fresh)
    assert isinstance(g2, jax.core.Tracer), type(g2)
    print("stale global:", stale, "vs fresh", fresh, "; leaked:", type(g2).__name__)
