# source: https://github.com/google-research/computation-thru-dynamics/issues/15 (the fixed
#   point finder's optimize_fp_core, its jit and optimize_fps, from
#   https://github.com/google-research/computation-thru-dynamics/blob/94b47aff4cd029aa9df3d0402047110bc3f3519d/fixed_point_finder/fixed_points.py;
#   docstrings are left out, `jax.experimental.optimizers` is spelled
#   `jax.example_libraries.optimizers`, and a tanh map, candidates and hyperparameters stand
#   in for the tutorial's trained GRU)
# observed on jax 0.10.2 CPU: ValueError "Non-hashable static arguments are not supported" at
#   the call of optimize_fp_core_jit: the optimizer state is static (static_argnums 3), and
#   its packed state is a list.
# gap: static-hashability
import time

import jax.numpy as np
from jax import grad, jit, lax, random, vmap
from jax.example_libraries import optimizers


def get_fp_loss_fun(rnn_fun):
  batch_rnn_fun = vmap(rnn_fun, in_axes=(0,))
  return jit(lambda h : np.mean((h - batch_rnn_fun(h))**2, axis=1))


def get_total_fp_loss_fun(rnn_fun):
  fp_loss_fun = get_fp_loss_fun(rnn_fun)
  return jit(lambda h : np.mean(fp_loss_fun(h)))


def optimize_fp_core(batch_idx_start, num_batches, update_fun, opt_state):
  def run_update(batch_idx, opt_state):
    opt_state = update_fun(batch_idx, opt_state)
    return opt_state

  lower = batch_idx_start
  upper = batch_idx_start + num_batches
  return lax.fori_loop(lower, upper, run_update, opt_state)


optimize_fp_core_jit = jit(optimize_fp_core, static_argnums=(1, 2, 3))


def optimize_fps(rnn_fun, fp_candidates, hps, do_print=True):
  total_fp_loss_fun = get_total_fp_loss_fun(rnn_fun)

  def get_update_fun(opt_update, get_params):
    def update(i, opt_state):
      params = get_params(opt_state)
      grads = grad(total_fp_loss_fun)(params)    
      return opt_update(i, grads, opt_state)

    return update

  # Build some functions used in optimization.
  decay_fun = optimizers.exponential_decay(hps['step_size'],
                                           hps['decay_steps'],
                                           hps['decay_factor'])
  opt_init, opt_update, get_params = optimizers.adam(step_size=decay_fun,
                                                     b1=hps['adam_b1'],
                                                     b2=hps['adam_b2'],
                                                     eps=hps['adam_eps'])
  opt_state = opt_init(fp_candidates)
  update_fun = get_update_fun(opt_update, get_params)

  # Run the optimization, pausing every so often to collect data and
  # print status.
  batch_size = fp_candidates.shape[0]
  num_batches = hps['num_batches']
  print_every = hps['opt_print_every']
  num_opt_loops = int(num_batches / print_every)
  fps = get_params(opt_state)
  fp_losses = []
  do_stop = False
  for oidx in range(num_opt_loops):
    if do_stop:
      break
    batch_idx_start = oidx * print_every
    start_time = time.time()
    opt_state = optimize_fp_core_jit(batch_idx_start, print_every, update_fun,  # expect: JIT302
                                     opt_state)
    batch_time = time.time() - start_time

    # Training loss
    fps = get_params(opt_state)
    batch_pidx = batch_idx_start + print_every
    total_fp_loss = total_fp_loss_fun(fps)
    fp_losses.append(total_fp_loss)
    
    # Saving, printing.
    if do_print:
      s = "    Batches {}-{} in {:0.2f} sec, Step size: {:0.5f}, Training loss {:0.5f}"
      print(s.format(batch_idx_start+1, batch_pidx, batch_time,
                     decay_fun(batch_pidx), total_fp_loss))

    if total_fp_loss < hps['fp_opt_stop_tol']:
      do_stop = True
      if do_print:
        print('Stopping as mean training loss {:0.5f} is below tolerance {:0.5f}.'.format(total_fp_loss, hps['fp_opt_stop_tol']))
    optimizer_details = {'fp_losses' : fp_losses}    
  return fps, optimizer_details


W = 0.5 * random.normal(random.PRNGKey(0), (4, 4))
rnn_fun = lambda h: np.tanh(W @ h)
fp_hps = {'num_batches' : 200, 'step_size' : 0.2, 'decay_factor' : 0.9999,
          'decay_steps' : 1, 'adam_b1' : 0.9, 'adam_b2' : 0.999, 'adam_eps' : 1e-5,
          'opt_print_every' : 100, 'fp_opt_stop_tol' : 1e-9}
fp_candidates = random.normal(random.PRNGKey(1), (8, 4))
fps, details = optimize_fps(rnn_fun, fp_candidates, fp_hps)
