# source: https://github.com/cjchristopher/ffsat/blob/df0f38afe030a2b32301734466972daa7022d4e8/gpu_novelty_fused.py
# observed on jax 0.10.2 CPU: runs clean; the jitted lax.while_loop beam search (vmapped
#   neighbour expansion with split keys, argsort selection, random refill) is built once and
#   compiled once, the clause weights travel in BeamState and change between restarts
#   without a recompilation. This is the fix (commit df0f38a) of the per-restart
#   recompilation in its parent commit.
# gap: per-call-recompile
# added: imports; ClauseArrays and clause_type_ids as defined in boolean_whf.py of the same
#   commit; the file from `print = ...` up to its entry point (main() and argument parsing,
#   which load DIMACS files, left out); the XLA_FLAGS / memory environment settings and the
#   GPU-only jax.config updates at import left out; `jax.devices("gpu")` is `jax.devices()`;
#   a stub for utils.get_gpu_l2_cache_size (not reached: the batch size is given); the
#   __main__ block (a random unsatisfiable-density 3-SAT instance).
from __future__ import annotations

import functools
import logging
import math
from time import perf_counter as time
from typing import NamedTuple
from collections.abc import Callable
from typing import TypeAlias

import jax
from jax.experimental import io_callback
import jax.numpy as jnp
import numpy as np
from jax import Array
from jax.sharding import Mesh, NamedSharding
from tqdm.auto import tqdm

logger = logging.getLogger(__name__)


def get_gpu_l2_cache_size(device):  # stub for utils.get_gpu_l2_cache_size
    return None


class ClauseArrays(NamedTuple):  # boolean_whf.py
    lits: Array
    sign: Array
    mask: Array
    types: Array
    cards: Array


clause_type_ids: dict[str, int] = {"card": 0, "xor": 1, "eo": 2, "nae": 3, "cnf": 4, "amo": 5, "ek": 6}

print = functools.partial(print, flush=True)

VerifyFn: TypeAlias = Callable[[Array, Array], tuple[Array, Array]]

DEFAULT_INNER_ITERS = 10


class BeamState(NamedTuple):
    """State carried through beam search iterations."""
    points: Array           # (batch_size, n_vars) current beam
    best_candidate: Array   # (n_vars,) best assignment seen
    best_unsat: Array       # () scalar, best unsat count
    clause_totals: Array    # (n_clauses,) accumulated for reweighting
    iter_count: Array       # () iteration counter
    rng_key: Array          # PRNG state
    done: Array             # () bool, early exit flag
    weights: Array          # (n_clauses,) clause weights


def build_verifier(cls: tuple[ClauseArrays, ...]) -> VerifyFn:
    """Build a verification function that returns weighted scores and unsat mask."""

    def single_verifier(cl: ClauseArrays) -> Callable[[Array], Array]:
        lits = cl.lits
        sign = cl.sign
        mask = cl.mask
        cards = cl.cards
        types = cl.types
        clause_count = lits.shape[0]
        is_negated = sign < 0

        unsat_rules = {
            "xor": lambda x: jnp.sum(x, axis=-1, where=mask) % 2 == 0,
            "cnf": lambda x: ~jnp.any(x, axis=-1, where=mask),
            "eo": lambda x: jnp.sum(x, axis=-1, where=mask) != 1,
            "amo": lambda x: jnp.sum(x, axis=-1, where=mask) > 1,
            "nae": lambda x: ~(jnp.any(x, axis=-1, where=mask) & jnp.any(~x, axis=-1, where=mask)),
            "card": lambda x: jnp.where(
                cards < 0,
                jnp.sum(x, axis=-1, where=mask) >= jnp.abs(cards),
                jnp.sum(x, axis=-1, where=mask) < cards,
            ),
            "ek": lambda x: jnp.sum(x, axis=-1, where=mask) != cards,
        }

        def verify(x: Array) -> Array:
            clause_assigned = x[:, lits] ^ is_negated
            unsat = jnp.zeros((x.shape[0], clause_count), dtype=int)
            for clause_type, rule in unsat_rules.items():
                type_id = clause_type_ids[clause_type]
                unsat_clauses = rule(clause_assigned)
                unsat += jnp.where(types == type_id, unsat_clauses, 0)
                # unsat = unsat | jnp.where(types == type_id, unsat_clauses, unsat)
            return unsat

        return verify

    verifiers = [single_verifier(cl) for cl in cls]

    def combined_verify(x: Array, weights: Array) -> tuple[Array, Array]:
        all_unsat = [v(x) for v in verifiers]
        combined = jnp.concatenate(all_unsat, axis=-1)
        weighted_scores = jnp.sum(combined.astype(jnp.float32) * weights, axis=-1)
        return weighted_scores, combined

    return combined_verify


def get_mesh(devices: list) -> tuple[Mesh, NamedSharding]:
    """Create mesh and sharding for batch parallelism."""
    mesh = Mesh(np.array(devices).reshape((len(devices),)), ("batch",))
    batch_sharding = NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))
    return mesh, batch_sharding


def make_gpu_inner_loop(
    n_vars: int,
    n_clauses: int,
    batch_size: int,
    n_keep: int,
    n_cull: int,
    top_m: int,
    counting: bool,
    verifier: VerifyFn,
    flip_mask: Array,
    n_flip: int,
    # Single-prefix support (all points share one prefix)
    fixed_mask_1d: Array | None = None,
    prefix_bools_1d: Array | None = None,
    # Multi-prefix support (vmap over prefix groups)
    all_fixed_masks: Array | None = None,
    all_prefix_bools: Array | None = None,
    n_prefix: int = 0,
):
    """Factory to create GPU inner loop with constants closed over.

    Prefix modes:
      - No prefix:      flip_mask is (n_vars, n_vars), n_flip == n_vars.
      - Single prefix:  flip_mask is (n_free, n_vars), n_flip == n_free.
                         fixed_mask_1d / prefix_bools_1d are (n_vars,).
      - Multi-prefix:   flip_mask is (n_prefix, max_n_free, n_vars), n_flip == max_n_free.
                         Padded zero-rows produce duplicate candidates (harmless waste
                         proportional to the gap between longest and shortest prefix).
                         Expand and select are vmapped over prefix groups — no
                         per-point prefix tracking needed.
    """

    n_expanded = batch_size * top_m
    single_prefix = fixed_mask_1d is not None
    multi_prefix = all_fixed_masks is not None

    # Per-group constants for multi-prefix
    if multi_prefix:
        assert all_fixed_masks is not None and all_prefix_bools is not None
        ppg = batch_size // n_prefix              # points per group
        n_cull_pg = n_cull // n_prefix
        n_keep_pg = ppg - n_cull_pg

    # Host-side solution collection
    collected_solutions: list[np.ndarray] = []

    def host_collect_solutions(potential_sols: np.ndarray, sol_indices: np.ndarray) -> None:
        """Host callback - extracts actual solutions using sentinel-based filtering."""
        for i, idx in enumerate(sol_indices):
            if idx >= 0:
                collected_solutions.append(potential_sols[i].copy())

    def get_solutions() -> list[np.ndarray]:
        return collected_solutions

    def clear_solutions() -> None:
        collected_solutions.clear()

    # ─── Expand / select for no-prefix and single-prefix ─────────────────

    def beam_expand(points: Array, weights: Array, rng_key: Array) -> tuple[Array, Array, Array]:
        """Expand all points to their best neighbors (no-prefix / single-prefix)."""
        keys = jax.random.split(rng_key, batch_size)

        def single_point_step(point: Array, key: Array) -> tuple[Array, Array, Array]:
            candidates = point ^ flip_mask  # (n_flip, n_vars)
            weighted_scores, unsat_masks = verifier(candidates, weights)
            unsat_counts = jnp.sum(unsat_masks, axis=-1)
            noise = jax.random.uniform(key, shape=(n_flip,), minval=0, maxval=0.5)
            noisy_scores = weighted_scores + noise

            if top_m > 1:
                top_idx = jnp.argsort(noisy_scores)[:top_m]
                return candidates[top_idx], unsat_counts[top_idx], unsat_masks[top_idx]
            else:
                best = jnp.argmin(noisy_scores)
                return candidates[best], unsat_counts[best], unsat_masks[best]

        neighbors, unsats, masks = jax.vmap(single_point_step)(points, keys)
        return neighbors.reshape(-1, n_vars), unsats.reshape(-1), masks.reshape(-1, n_clauses)

    def select_and_refill(expanded: Array, unsat_masks: Array, weights: Array, fill_key: Array) -> Array:
        """Select top candidates and optionally refill (no-prefix / single-prefix)."""
        scores = jnp.sum(unsat_masks.astype(jnp.float32) * weights, axis=-1)
        sorted_idx = jnp.argsort(scores)
        kept = expanded[sorted_idx[:n_keep]]

        if n_cull > 0:
            random_fill = jax.random.bernoulli(fill_key, p=0.5, shape=(n_cull, n_vars))
            if single_prefix:
                assert fixed_mask_1d is not None and prefix_bools_1d is not None
                random_fill = jnp.where(fixed_mask_1d, prefix_bools_1d, random_fill)
            return jnp.concatenate([kept, random_fill], axis=0)
        return kept

    # ─────────────────────────────────────────────────────────────────────

    def make_inner_loop(n_iters: int):
        """Create JIT-compiled inner loop for given iteration count.

        Weights are read dynamically from BeamState.weights — no recompilation
        needed when weights change between restarts.
        """

        def body_fn(state: BeamState) -> BeamState:
            weights = state.weights
            rng_key, step_key, fill_key = jax.random.split(state.rng_key, 3)

            if multi_prefix:
                # ─── Multi-prefix: double vmap (prefix_groups × points) ──
                assert all_fixed_masks is not None and all_prefix_bools is not None
                grouped = state.points.reshape(n_prefix, ppg, n_vars)
                group_step_keys = jax.random.split(step_key, n_prefix)
                group_fill_keys = jax.random.split(fill_key, n_prefix)

                def expand_group(
                    group_pts: Array, group_mask: Array, gkey: Array,
                ) -> tuple[Array, Array, Array]:
                    pkeys = jax.random.split(gkey, ppg)
                    def step(point: Array, key: Array) -> tuple[Array, Array, Array]:
                        candidates = point ^ group_mask  # (n_flip, n_vars)
                        w_scores, u_masks = verifier(candidates, weights)
                        u_counts = jnp.sum(u_masks, axis=-1)
                        noise = jax.random.uniform(key, shape=(n_flip,), minval=0, maxval=0.5)
                        noisy = w_scores + noise
                        if top_m > 1:
                            idx = jnp.argsort(noisy)[:top_m]
                            return candidates[idx], u_counts[idx], u_masks[idx]
                        else:
                            b = jnp.argmin(noisy)
                            return candidates[b], u_counts[b], u_masks[b]
                    nbrs, us, ms = jax.vmap(step)(group_pts, pkeys)
                    return nbrs.reshape(-1, n_vars), us.reshape(-1), ms.reshape(-1, n_clauses)

                expanded_g, unsats_g, masks_g = jax.vmap(expand_group)(
                    grouped, flip_mask, group_step_keys,
                )
                # expanded_g: (n_prefix, ppg*top_m, n_vars)
                # unsats_g:   (n_prefix, ppg*top_m)
                # masks_g:    (n_prefix, ppg*top_m, n_clauses)

                # Flatten for global operations
                expanded = expanded_g.reshape(-1, n_vars)
                unsats = unsats_g.reshape(-1)
                unsat_masks = masks_g.reshape(-1, n_clauses)

                # Accumulate
                new_clause_totals = state.clause_totals + unsat_masks.sum(axis=0).astype(jnp.float32)

                # Global best
                best_idx = jnp.argmin(unsats)
                iter_best = expanded[best_idx]
                iter_best_unsat = unsats[best_idx]
                is_better = iter_best_unsat < state.best_unsat
                new_best_candidate = jnp.where(is_better, iter_best, state.best_candidate)
                new_best_unsat = jnp.minimum(iter_best_unsat, state.best_unsat)

                # Per-group selection with prefix-aware refill
                def select_group(
                    g_exp: Array, g_masks: Array,
                    g_fixed: Array, g_bools: Array, g_fkey: Array,
                ) -> Array:
                    scores = jnp.sum(g_masks.astype(jnp.float32) * weights, axis=-1)
                    sorted_idx = jnp.argsort(scores)
                    kept = g_exp[sorted_idx[:n_keep_pg]]
                    if n_cull_pg > 0:
                        fill = jax.random.bernoulli(g_fkey, p=0.5, shape=(n_cull_pg, n_vars))
                        fill = jnp.where(g_fixed, g_bools, fill)
                        return jnp.concatenate([kept, fill], axis=0)
                    return kept

                selected_g = jax.vmap(select_group)(
                    expanded_g, masks_g,
                    all_fixed_masks, all_prefix_bools, group_fill_keys,
                )
                new_points = selected_g.reshape(batch_size, n_vars)

            else:
                # ─── No-prefix / single-prefix ──────────────────────────
                expanded, unsats, unsat_masks = beam_expand(state.points, weights, step_key)

                new_clause_totals = state.clause_totals + unsat_masks.sum(axis=0).astype(jnp.float32)

                best_idx = jnp.argmin(unsats)
                iter_best = expanded[best_idx]
                iter_best_unsat = unsats[best_idx]
                is_better = iter_best_unsat < state.best_unsat
                new_best_candidate = jnp.where(is_better, iter_best, state.best_candidate)
                new_best_unsat = jnp.minimum(iter_best_unsat, state.best_unsat)

                new_points = select_and_refill(expanded, unsat_masks, weights, fill_key)

            # ─── Solution handling (shared) ────────────────────────────
            sol_mask = unsats == 0
            n_sols = sol_mask.sum()

            if counting:
                sol_indices = jnp.where(sol_mask, size=n_expanded, fill_value=-1)[0]
                potential_sols = expanded[jnp.maximum(sol_indices, 0)]
                io_callback(
                    host_collect_solutions,
                    (),
                    potential_sols,
                    sol_indices,
                    ordered=False,
                )
                new_done = jnp.array(False)
            else:
                new_done = n_sols > 0

            return BeamState(
                points=new_points,
                best_candidate=new_best_candidate,
                best_unsat=new_best_unsat,
                clause_totals=new_clause_totals,
                iter_count=state.iter_count + 1,
                rng_key=rng_key,
                done=new_done,
                weights=weights,
            )

        def cond_fn(state: BeamState) -> Array:
            return (~state.done) & (state.iter_count < n_iters)

        @jax.jit
        def gpu_inner_loop(init_state: BeamState) -> BeamState:
            return jax.lax.while_loop(cond_fn, body_fn, init_state)

        return gpu_inner_loop

    return make_inner_loop, get_solutions, clear_solutions


def run_beam_search(
    timeout: int,
    n_vars: int,
    n_clauses: int,
    batch_size: int,
    cls: tuple[ClauseArrays, ...],
    n_devices: int = 1,
    max_iters: int = 0,
    rand_seed: bool = False,
    counting: bool = False,
    top_m: int = 1,
    beta: float = 0.0,
    restart_thresh: int = 0,
    weight_decay: float = 0.9,
    prefixes: np.ndarray | None = None,
) -> float:
    """Run parallel beam search SAT solver with fused GPU inner loop."""

    # Initialize devices and mesh
    devices = jax.devices()[:n_devices]
    mesh, batch_sharding = get_mesh(devices)
    jax.sharding.set_mesh(mesh)

    seed = int(time()) if rand_seed else 42
    rng_key = jax.random.PRNGKey(seed)
    rng_key, init_key = jax.random.split(rng_key)

    verifier = jax.jit(build_verifier(cls))
    weights = jnp.ones(n_clauses, dtype=jnp.float32)

    # ── Prefix handling ──────────────────────────────────────────────────
    n_prefix = prefixes.shape[0] if prefixes is not None else 0
    single_prefix = (n_prefix == 1)
    multi_prefix = (n_prefix > 1)

    if single_prefix:
        assert prefixes is not None
        # Reduced flip_mask: only rows for free (unfixed) variables.
        free_indices = np.where(prefixes[0] == 0)[0]
        n_flip = len(free_indices)
        flip_mask = jnp.eye(n_vars, dtype=bool)[free_indices]  # (n_free, n_vars)
        fixed_mask_1d = jnp.array(prefixes[0] != 0)             # (n_vars,) True where fixed
        prefix_bools_1d = jnp.array(prefixes[0] < 0)            # (n_vars,) True where var=True
        print(f"Single prefix: {n_flip} free vars (reduced from {n_vars})")
    elif multi_prefix:
        assert prefixes is not None
        # Per-prefix reduced flip masks, padded to max_n_free with zero-rows.
        # Zero-row XOR produces a duplicate of the original point (harmless waste).
        all_free_indices = [np.where(prefixes[k] == 0)[0] for k in range(n_prefix)]
        n_free_per_prefix = [len(fi) for fi in all_free_indices]
        max_n_free = max(n_free_per_prefix)
        n_flip = max_n_free
        eye = np.eye(n_vars, dtype=bool)
        padded_masks = np.zeros((n_prefix, max_n_free, n_vars), dtype=bool)
        for k, fi in enumerate(all_free_indices):
            padded_masks[k, :len(fi)] = eye[fi]
        flip_mask = jnp.array(padded_masks)  # (n_prefix, max_n_free, n_vars)
        all_fixed_masks = jnp.array(prefixes != 0)   # (n_prefix, n_vars)
        all_prefix_bools = jnp.array(prefixes < 0)    # (n_prefix, n_vars)
        waste_pct = 100 * (1 - sum(n_free_per_prefix) / (n_prefix * max_n_free))
        print(f"Multi-prefix: {n_prefix} vectors, max_n_free={max_n_free}/{n_vars}, padding waste={waste_pct:.1f}%")
    else:
        flip_mask = jnp.eye(n_vars, dtype=bool)
        n_flip = n_vars
    # ─────────────────────────────────────────────────────────────────────

    # Determine inner loop size
    inner_iters = restart_thresh if restart_thresh > 0 else DEFAULT_INNER_ITERS

    # Adjust max_iters to multiple of inner_iters
    if max_iters > 0 and max_iters % inner_iters != 0:
        old = max_iters
        max_iters = ((max_iters // inner_iters) + 1) * inner_iters
        print(f"WARNING: Adjusted max_iters {old} -> {max_iters} (multiple of {inner_iters})")

    # Auto-select batch size
    if batch_size == -1:
        print("Guessing optimal batch size")
        l2_cache_size = get_gpu_l2_cache_size(devices[0])
        if l2_cache_size is not None:
            gpu_mem_target = int(l2_cache_size * 0.90) * n_devices * 2
            print(f"Targeting L2 cache: {l2_cache_size / (1024*1024):.1f} MB per GPU")
        else:
            gpu_mem_target = devices[0].memory_stats()["bytes_limit"] * 0.01
            print("L2 cache size unknown, using 1% VRAM heuristic")

        dtype_sz = jnp.dtype(cls[0].lits.dtype).itemsize
        all_obj_sz = sum([np.prod([*ca.lits.shape, dtype_sz]) for ca in cls])
        flip_sz = (n_clauses * n_flip + n_flip * n_vars) * jnp.dtype(bool).itemsize
        batch_size = int(np.floor((gpu_mem_target - all_obj_sz) / flip_sz)) * n_devices
        print(f"Batch size: {batch_size} (n_flip={n_flip}, consumed by clauses: {all_obj_sz / (1024*1024):.1f} MB)")

    # Batch alignment: must be divisible by n_devices and n_prefix (if any).
    alignment = math.lcm(max(n_prefix, 1), n_devices)
    batch_size = (batch_size // alignment) * alignment
    batch_size = max(batch_size, alignment)

    # Recompute n_cull/n_keep after final batch_size is settled.
    n_cull = int(batch_size * beta)
    n_keep = batch_size - n_cull

    # Create GPU loop factory
    make_inner_loop, get_solutions, clear_solutions = make_gpu_inner_loop(
        n_vars=n_vars,
        n_clauses=n_clauses,
        batch_size=batch_size,
        n_keep=n_keep,
        n_cull=n_cull,
        top_m=top_m,
        counting=counting,
        verifier=verifier,
        flip_mask=flip_mask,
        n_flip=n_flip,
        # Single-prefix constants (None when unused)
        fixed_mask_1d=fixed_mask_1d if single_prefix else None,
        prefix_bools_1d=prefix_bools_1d if single_prefix else None,
        # Multi-prefix tables (None when unused)
        all_fixed_masks=all_fixed_masks if multi_prefix else None,
        all_prefix_bools=all_prefix_bools if multi_prefix else None,
        n_prefix=n_prefix,
    )

    # Initialize points
    points = jax.random.bernoulli(init_key, p=0.5, shape=(batch_size * top_m, n_vars))

    # Apply prefix values to initial points
    if single_prefix:
        points = jnp.where(fixed_mask_1d, prefix_bools_1d, points)
    elif multi_prefix:
        # Replicate prefix bools across batch in contiguous groups
        rep = (batch_size * top_m) // n_prefix
        replicated_mask = jnp.repeat(all_fixed_masks, rep, axis=0)
        replicated_bools = jnp.repeat(all_prefix_bools, rep, axis=0)
        points = jnp.where(replicated_mask, replicated_bools, points)

    if top_m > 1:
        if multi_prefix:
            # Per-group selection to maintain structural prefix grouping
            ppg_init = (batch_size * top_m) // n_prefix
            ppg_final = batch_size // n_prefix
            grouped = points.reshape(n_prefix, ppg_init, n_vars)
            def _init_select_group(group_pts: Array) -> Array:
                scores, _ = verifier(group_pts, weights)
                idx = jnp.argsort(scores)[:ppg_final]
                return group_pts[idx]
            points = jax.vmap(_init_select_group)(grouped).reshape(batch_size, n_vars)
        else:
            weighted_scores, _ = verifier(points, weights)
            top_indices = jnp.argsort(weighted_scores)[:batch_size]
            points = points[top_indices]
    points = jax.device_put(points, batch_sharding)

    # Initial state
    state = BeamState(
        points=points,
        best_candidate=points[0],
        best_unsat=jnp.array(n_clauses, dtype=jnp.int32),
        clause_totals=jnp.zeros(n_clauses, dtype=jnp.float32),
        iter_count=jnp.array(0, dtype=jnp.int32),
        rng_key=rng_key,
        done=jnp.array(False),
        weights=weights,
    )

    total_iters = 0
    restart_ct = 0
    best_assignment = None
    best_unsat_host = n_clauses

    pbar = tqdm(
        total=timeout,
        desc="iter 0 (best=undef)",
        bar_format="{l_bar}{bar}|{elapsed}/{total_fmt} {postfix}",
    )

    t0 = time()
    last_update = t0

    # Compile inner loop once (weights are dynamic via BeamState)
    gpu_loop = make_inner_loop(inner_iters)

    while (time() - t0 < timeout):
        if max_iters > 0 and total_iters >= max_iters:
            break

        # Reset per-batch state (keep points and best)
        state = state._replace(
            clause_totals=jnp.zeros(n_clauses, dtype=jnp.float32),
            iter_count=jnp.array(0, dtype=jnp.int32),
            done=jnp.array(False),
        )

        # ===== GPU INNER LOOP =====
        state = gpu_loop(state)
        jax.block_until_ready(state)

        total_iters += inner_iters

        # Track best assignment
        best_unsat_val = int(state.best_unsat)
        if best_unsat_val < best_unsat_host:
            best_assignment = np.array(state.best_candidate)
            best_unsat_host = best_unsat_val

        # Check for early exit (non-counting mode)
        if state.done and not counting:
            best_assignment = np.array(state.best_candidate)
            print(f"\nSAT! Found at ~iteration {total_iters}")
            break

        # Report solutions found (counting mode)
        n_found = len(get_solutions())
        if counting and n_found > 0:
            print(f"\nSolutions so far: {n_found}")

        # Reweight clauses
        if restart_thresh > 0:
            clause_totals = np.array(state.clause_totals)
            worst = max(clause_totals.max(), 1.0)
            old_w = np.array(state.weights)
            new_w = weight_decay * old_w + (1 - weight_decay) * clause_totals / worst
            state = state._replace(weights=jnp.array(new_w, dtype=jnp.float32))
            restart_ct += 1

        # Progress update
        now = time()
        if now - last_update > 0.5:
            elapsed = now - t0
            pbar.n = min(elapsed, timeout)
            pbstr = f"{total_iters % inner_iters}/{inner_iters}" if restart_thresh else f"{total_iters}"
            pbar.set_description(f"restart {restart_ct} ({pbstr} -- best={best_unsat_val})")
            pbar.set_postfix_str(f"{total_iters / elapsed:.1f} it/s")
            pbar.refresh()
            last_update = now

    pbar.close()
    solve_time = time() - t0

    # Final output
    best_unsat_val = int(state.best_unsat)
    if counting:
        all_solutions = get_solutions()
        if all_solutions:
            print("SAT!")
            assignment = all_solutions[0]
            out_string = "v"
            for i in range(n_vars):
                lit = i + 1
                out_string += f" {lit}" if assignment[i] else f" {-lit}"
            print(out_string)
            print(f"Found {len(all_solutions)} solutions")
        else:
            print(f"No solution found. Best unsat count: {best_unsat_val}")
    elif best_unsat_val == 0 and best_assignment is not None:
        print("SAT!")
        out_string = "v"
        for i in range(n_vars):
            lit = i + 1
            out_string += f" {lit}" if best_assignment[i] else f" {-lit}"
        print(out_string)
    else:
        print(f"No solution found. Best unsat count: {best_unsat_val}")
        if best_assignment is not None:
            out_string = "v"
            for i in range(n_vars):
                lit = i + 1
                out_string += f" {lit}" if best_assignment[i] else f" {-lit}"
            print(f"Best assignment: {out_string}")

    logger.info(f"X-ITERS {total_iters}")
    logger.info(f"X-TIME {solve_time}")
    logger.info(f"X-BEAM {batch_size}")
    logger.info(f"X-BEST_UNSAT {best_unsat_val}")

    return solve_time


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_vars, n_clauses = 10, 80
    lits = np.stack([rng.choice(n_vars, 3, replace=False) for _ in range(n_clauses)]).astype(np.int32)
    cls = (ClauseArrays(
        lits=jnp.array(lits),
        sign=jnp.array(rng.choice([-1, 1], size=(n_clauses, 3)), dtype=jnp.int32),
        mask=jnp.ones((n_clauses, 3), dtype=bool),
        types=jnp.full((n_clauses,), clause_type_ids["cnf"], dtype=jnp.int32),
        cards=jnp.zeros((n_clauses,), dtype=jnp.int32),
    ),)
    compiled = []

    class _CompileLog(logging.Handler):
        def emit(self, record):
            msg = record.getMessage()
            if msg.startswith("Compiling") and "gpu_inner_loop" in msg:
                compiled.append(msg)

    logging.getLogger("jax").addHandler(_CompileLog())
    jax.config.update("jax_log_compiles", True)
    run_beam_search(
        timeout=120, n_vars=n_vars, n_clauses=n_clauses, batch_size=8, cls=cls,
        max_iters=30, top_m=2, beta=0.25, restart_thresh=10,
    )
    jax.config.update("jax_log_compiles", False)
    assert len(compiled) == 1, compiled
