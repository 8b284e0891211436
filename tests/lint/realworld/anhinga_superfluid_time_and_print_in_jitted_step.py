# source: https://github.com/anhinga/2024-jax-drafts/blob/1fbf71a4362bdbf2169af0413e3dfa2b585d1bd8/superfluid/jit-attempt/run_both_networks.py
#   (a user's "making it work with jax.jit" attempt; the next commit turns the scan body's
#   print into jax.debug.print of an f-string ("printing still does not work, even with
#   jax.debug.print"), a later one comments it out ("the easiest way is to print (and pickle
#   and so on) between jit runs"))
# observed on jax 0.10.2 CPU: every `print` and `time.time()` in the jitted `step` and in the
#   scan body runs once, while `n_steps` is traced: the first call prints "about to compute
#   gradient", four trace-time durations and `step: JitTracer(int32[]) loss:
#   JitTracer(float32[])` once for three steps, and a second call prints nothing at all.
#   Kept: the file from its start to the call of `n_steps`, without the unused
#   `format_floats`/`convert_jax_to_plain` and the commented-out code in triple-quoted strings.
#   Added: the imports and names the file gets from the project's other modules run before it:
#   `SENTINEL`, `rng_key` and `create_tree` as in its `tree_masked_init.py`; stand-ins for the
#   network (`initial_output`, `initial_output_manual`: two neurons, each with an optimizable
#   weight) and for its engine's `two_stroke_cycle` (one weighted update per neuron).
# gap: other
import jax
import jax.numpy as jnp
from jax import random
import jax.tree_util as tree_util

SENTINEL = -9999.0

def create_tree(rng_key, tree_structure):
    def initialize_leaf(key, leaf):
        if leaf == SENTINEL:
            return 0.1*random.normal(key, ())
        return leaf
    
    leaves, treedef = tree_util.tree_flatten(tree_structure)
    rng_keys = random.split(rng_key, len(leaves))
    
    initialized_leaves = [initialize_leaf(rng_key, leaf) for rng_key, leaf in zip(rng_keys, leaves)]
    
    return tree_util.tree_unflatten(treedef, initialized_leaves)

rng_key = random.PRNGKey(0)

# stand-ins for the network and its engine
initial_output = {'dict-1': {'w': SENTINEL, ':number': 1.0}, 'dict-2': {'w': SENTINEL, ':number': 0.0}}
initial_output_manual = {'dict-1': {'w': 0.5, ':number': 1.0}, 'dict-2': {'w': -0.5, ':number': 0.0}}

def two_stroke_cycle(current_output):
    new_input = {'output': {name: {':number': current_output[name]['w'] * current_output[name][':number'] + 1.0}
                            for name in ('dict-1', 'dict-2')}}
    new_output = {name: {'w': current_output[name]['w'], ':number': new_input['output'][name][':number']}
                  for name in ('dict-1', 'dict-2')}
    return {'input': new_input, 'output': new_output}


import time
import optax

leaves, treedef = tree_util.tree_flatten(initial_output)
print("size (leaves):", len(leaves), len([k for k in leaves if k == SENTINEL]), 
                        len([k for k in leaves if k == 1.0]), len([k for k in leaves if k == 0.0]))

start_time = time.time()

changing_output = create_tree(rng_key, initial_output)

from pprint import pprint

from functools import reduce

def square(x):
    return x * x

def one_cycle(state):
    return two_stroke_cycle(state['output'])

def one_iteration(accum, y):
    previous_dict, previous_state = accum
    new_state = one_cycle(previous_state)
    new_dict = {**previous_dict, **{y: new_state}}
    return (new_dict, new_state)

print(time.time()-start_time, " seconds")

def loss_fn(changing_output):
    trace, _ = reduce(one_iteration, range(2), ({}, {'input': {}, 'output': changing_output}))
    trace_manual, _ = reduce(one_iteration, range(2), ({}, {'input': {}, 'output': initial_output_manual}))
    first = [trace[key]['input']['output']['dict-1'][':number'] for key in trace if key != 0]
    second = [trace[key]['input']['output']['dict-2'][':number'] for key in trace if key != 0]
    first_manual = [trace_manual[key]['input']['output']['dict-1'][':number'] for key in trace_manual if key != 0]
    second_manual = [trace_manual[key]['input']['output']['dict-2'][':number'] for key in trace_manual if key != 0]
    unregularized_loss = sum(square(x - y) for x, y in zip(first, first_manual)) + \
                         sum(square(x - y) for x, y in zip(second, second_manual))    
    # TODO: ADD REGULARIZATION (STANDARD AND NOVEL)
    loss = unregularized_loss
    return loss

# Mask to ensure updates only apply to optimizable weights
mask_tree = tree_util.tree_map(lambda x: x == SENTINEL, initial_output)

# Adam optimizer
optimizer = optax.adam(learning_rate=0.1) # might dial it back to 0.001, but we'll see; let's start ambitious
opt_state = optimizer.init(changing_output)

# Define the optimization step
@jax.jit
def step(changing_output, opt_state):
    start_time = time.time()  # expect: JIT204
    print("about to compute gradient")  # expect: JIT203
    loss, grads = jax.value_and_grad(loss_fn)(changing_output)
    print(time.time()-start_time, " seconds to compute gradient")  # expect: JIT203  # tolerate: JIT204
    
    # Apply mask to gradients
    start_time = time.time()  # expect: JIT204
    grads = tree_util.tree_map(lambda g, m: g if m else 0, grads, mask_tree)
    print(time.time()-start_time, " seconds to apply mask to gradient")  # expect: JIT203  # tolerate: JIT204
    
    start_time = time.time()  # expect: JIT204
    updates, opt_state = optimizer.update(grads, opt_state)
    print(time.time()-start_time, " seconds to compute optimizer update")  # expect: JIT203  # tolerate: JIT204
 
    start_time = time.time()  # expect: JIT204
    new_tree = optax.apply_updates(changing_output, updates)
    print(time.time()-start_time, " seconds to apply optimizer update")  # expect: JIT203  # tolerate: JIT204
    
    return new_tree, opt_state, loss
    
start_time = time.time()
print("initial loss ", loss_fn(changing_output), " computed in ", time.time()-start_time, " seconds")
   
import pickle

# Run optimization for 3 steps
@jax.jit
def n_steps(changing_output, opt_state):
    def loop_body(carry, n_step):
        carry_val, changing_output, opt_state = carry  # Unpack the carry
        changing_output, opt_state, loss = step(changing_output, opt_state)
        #start_time = time.time()
        #with open('changing_output.pkl', 'wb') as f:
        #    pickle.dump(changing_output, f)
        #with open('opt_state.pkl', 'wb') as f:
        #    pickle.dump(opt_state, f)
        #print(time.time()-start_time, " seconds to pickle the checkpoint")
        print(f'step: {n_step} loss: {loss}')  # expect: JIT203
        # carry is the loop state, n_step is the iteration number
        new_carry_val = carry_val + n_step  # Example update
        return (new_carry_val, changing_output, opt_state), new_carry_val
  # Return the updated carry and value to store

    initial_carry_val = 0  # Initial state
    steps = jnp.arange(3)  # Sequence of steps

    # Initial carry: combine everything into a tuple
    initial_carry = (initial_carry_val, changing_output, opt_state)
    
    # Use jax.lax.scan for the loop
    final_carry, _  = jax.lax.scan(loop_body, initial_carry, steps)

    # Unpack the final carry to get the final values
    final_carry_val, final_changing_output, final_opt_state = final_carry

    return final_changing_output, final_opt_state

changing_output, opt_state = n_steps(changing_output, opt_state)


if __name__ == "__main__":
    import contextlib
    import io

    # observed: line 103, line 104, line 106, line 109, line 111, line 113, line 115, line 117
    # observed: line 119 (with the lines above) run only while `n_steps` is traced: a fresh
    # trace prints the gradient message and the timings once for three steps, and a second
    # call of the compiled function prints nothing
    # observed: line 140 prints tracers, once, instead of each step's loss
    n_steps_again = jax.jit(n_steps.__wrapped__)  # tolerate: JIT301
    first = io.StringIO()
    with contextlib.redirect_stdout(first):
        out = n_steps_again(changing_output, opt_state)
    text = first.getvalue()
    assert text.count("about to compute gradient") == 1, text
    assert text.count("seconds to apply optimizer update") == 1, text
    assert text.count("step: ") == 1 and "Tracer" in text, text
    second = io.StringIO()
    with contextlib.redirect_stdout(second):
        n_steps_again(*out)
    assert second.getvalue() == "", second.getvalue()
