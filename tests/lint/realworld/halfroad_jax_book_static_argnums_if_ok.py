# source: https://github.com/halfroad/JAX/blob/2b208212a13ce7d05e514ff6de5e6cb369fdf5a9/Chapters/06/6.2/JaxPerformanceBolster/6.2.2/ImplicitParametersNotTraced/ImplicitParametersJitAdaptive.py
#   (a JAX book's example; the file keeps an earlier version, where `jit_function(10)` is
#   commented out and only jax.grad is called, in a module docstring, and runs this one)
# observed on jax 0.10.2 CPU: runs clean and prints 10.0 and a jaxpr: with
#   static_argnums=(0,) the float 10. is a hashable static argument, so `if x > 0` tests a
#   Python float at trace time, in jit and in make_jaxpr alike. Nothing added.
# gap: exemption-vs-JAX
"""

import jax


def function(x):

    if x > 0:
        return x
    else:
        return 2 * x

def main():

    jit_function = jax.jit(function)

    # jit_function(10)

    grad_function = jax.grad(function)

    print(grad_function(10.))

if __name__ == '__main__':

    main()


"""

import jax


def function(x):

    if x > 0:
        return x
    else:
        return 2 * x

def main():

    jit_function = jax.jit(function, static_argnums = (0,))

    print(jit_function(10.))

    jaxpr_function = jax.make_jaxpr(function, static_argnums = (0,))

    print(jaxpr_function(10.))

if __name__ == '__main__':

    main()
