# source: https://php.wlsqs.com/faq/1902291.html
#   (the fix the page gives for the question: each chained comparison split in two and
#   joined with `&`)
# observed on jax 0.10.2 CPU: grad(func, argnums=1)(1, 2.0) is 0.0 and
#   grad(func, argnums=1)(0, 0.5) is 1.0, as the page says; under jax.jit the same values.
#   Added: the __main__ block, which repeats the page's two calls under jit.
# gap: other
from jax.lax import switch
import jax.numpy as jnp
from jax import grad

# ✅ 正确:显式拆分为两个布尔数组,并用 & 连接
func_0 = lambda x: jnp.where((0. < x) & (x < 1.), x, 0.)
func_1 = lambda x: jnp.where((0. < x) & (x < 1.), x, 1.)

func_list = [func_0, func_1]
func = lambda index, x: switch(index, func_list, x)

# 现在可安全求导
df = grad(func, argnums=1)(1, 2.0)  # 输出: 0.0(因 x=2.0 不满足条件,返回常数 1 的梯度为 0)
print(df)  # => 0.0

# 验证在条件区间内也正常工作
df_in_range = grad(func, argnums=1)(0, 0.5)  # func_0 在 x=0.5 处导数为 1
print(df_in_range)  # => 1.0

if __name__ == "__main__":
    import jax

    dfunc = jax.jit(grad(func, argnums=1))
    assert float(dfunc(1, 2.0)) == 0.0
    assert float(dfunc(0, 0.5)) == 1.0
