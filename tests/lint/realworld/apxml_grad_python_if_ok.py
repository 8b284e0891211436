# source: https://apxml.com/courses/getting-started-with-jax/chapter-3-automatic-differentiation-grad/grad-control-flow
#   (a course page on jax.grad and Python control flow: its `if`/`else` example, up to
#   where the page turns to jax.lax.cond)
# observed on jax 0.10.2 CPU: grad_conditional_func(2.0) is 4.0 and grad_conditional_func(-2.0)
#   is -1.0; no error is raised, although the page says the second call fails with
#   "Abstract tracer value encountered". jax.grad does not stage the function out: `x > 0`
#   compares a tracer that holds a concrete value, so Python's `if` picks the branch on
#   every call. The except branch never runs. Added: the __main__ block.
# gap: exemption-vs-JAX
import jax
import jax.numpy as jnp
def conditional_func(x):
    if x > 0:
        return x * x
    else:
        return -x

grad_conditional_func = jax.grad(conditional_func)
# What happens when x > 0?
print(grad_conditional_func(2.0))
# Output: 4.0 (Correct derivative of x*x is 2x, so 2*2=4)
# What happens when x <= 0?
try:
    print(grad_conditional_func(-2.0))
except Exception as e:
    print(f"Error: {e}")
# Output: Error: Abstract tracer value encountered...
# ...Truth value of abstract tracer values is ambiguous.

if __name__ == "__main__":
    assert float(grad_conditional_func(2.0)) == 4.0
    assert float(grad_conditional_func(-2.0)) == -1.0
