# source: https://github.com/QuantAMMProtocol/quantammsim/blob/b3bd8ae08f87208ca9b9ac0c8b61fa8206bdbe38/quantammsim/pools/G3M/quantamm/TFMM_base_pool.py
# observed on jax 0.10.2 CPU: runs clean. The fix of commit b3bd8ae: the burn-in runs as a
#   fori_loop from 1 to the traced start_chunk_idx + 1 (a while loop with traced bounds)
#   reading chunkwise_price_values[i] with the traced counter; the bout prices come from a
#   dynamic_slice with a traced start and static sizes (n_bout_chunks from the Python ints of
#   run_fingerprint); jitted with start_index traced it returns (bout_length - 1, n_assets)
#   weights. The method at that commit, alone in its class (AbstractPool base and the other
#   methods dropped); EWMAPool is a small stand-in for a concrete rule; the __main__ block
#   is added.
# gap: other
from typing import Dict, Any, Optional

import jax
import jax.numpy as jnp
from jax.lax import dynamic_slice, scan, fori_loop

jax.config.update("jax_enable_x64", True)


class TFMMBasePool:
    def calculate_weights_scan(
        self,
        params: Dict[str, Any],
        run_fingerprint: Dict[str, Any],
        prices: jnp.ndarray,
        start_index: jnp.ndarray,
        additional_oracle_input: Optional[jnp.ndarray] = None,
    ) -> jnp.ndarray:
        """
        Calculate fine weights using sequential single-step interpolation blocks.

        This method produces the same outputs as calculate_weights, but uses
        a truly sequential approach:
        1. Warm up the estimator over the burn-in period (single-step updates)
        2. Reset weight state to initial_weights at bout start
        3. Scan over bout prices using calculate_fine_weights_step
        4. Concatenate interpolation blocks

        This mirrors how weights would be computed in a production system
        processing prices one step at a time.

        Parameters
        ----------
        params : Dict[str, Any]
            Pool parameters
        run_fingerprint : Dict[str, Any]
            Simulation settings including chunk_period, bout_length, n_assets
        prices : jnp.ndarray
            Full price history including burn-in period
        start_index : jnp.ndarray
            Start index for the bout period (after burn-in)
        additional_oracle_input : Optional[jnp.ndarray]
            Extra data for weight calculation

        Returns
        -------
        jnp.ndarray
            Fine weights matching calculate_weights output
        """
        chunk_period = run_fingerprint["chunk_period"]
        bout_length = run_fingerprint["bout_length"]
        n_assets = run_fingerprint["n_assets"]

        # Get initial weights
        initial_weights = self.calculate_initial_weights(params)

        # Chunk prices at chunk_period intervals
        chunkwise_price_values = prices[::chunk_period]

        # Calculate start chunk index (coarse level)
        start_chunk_idx = (start_index[0] / chunk_period).astype("int64")

        # Handle bout_length not divisible by chunk_period
        if bout_length % chunk_period != 0:
            n_bout_chunks = int(bout_length / chunk_period) + 1
        else:
            n_bout_chunks = int(bout_length / chunk_period)

        # Phase 1: Warm up estimator over burn-in period
        # Initialize estimator from first price
        estimator_carry = self.get_initial_rule_state(
            chunkwise_price_values[0], params, run_fingerprint
        )

        # Warm-up using fori_loop: supports traced (dynamic) bounds unlike scan.
        # Process burn-in chunks (index 1 through start_chunk_idx inclusive).
        #
        # PERFORMANCE NOTE: An alternative approach would use a fixed-size scan
        # which XLA can optimize better (unrolling, vectorization). The maximum
        # burn-in size is bounded by (max_memory_days * 1440 + bout_offset) / chunk_period
        # (maybe with some off by one indexing too) because:
        #   - Pre-slicing loads data starting at original_start - max_memory_days
        #   - start_idx can vary within bout_offset range during training
        #   - So max start_chunk_idx = (max_memory_days * 1440 + bout_offset) / chunk_period
        #
        # A fixed-size scan would:
        #   1. Compute max_burn_in_chunks from max_memory_days and bout_offset
        #   2. Always scan over max_burn_in_chunks prices (wasting iterations when
        #      actual burn-in is shorter)
        #   3. Benefit from better XLA optimization of scan vs fori_loop
        #
        # We use fori_loop here for clarity - it runs exactly the needed iterations.
        # If profiling shows this is a bottleneck, consider switching to fixed-size scan.
        def warm_up_body(i, est_carry):
            price = chunkwise_price_values[i]
            new_est_carry, _ = self.calculate_rule_output_step(
                est_carry, price, params, run_fingerprint
            )
            return new_est_carry

        # fori_loop upper bound is exclusive, so use start_chunk_idx + 1
        warmed_estimator_carry = fori_loop(
            1,  # start from index 1 (index 0 used for initialization)
            start_chunk_idx + 1,  # end exclusive (process up to start_chunk_idx)
            warm_up_body,
            estimator_carry,
        )

        # Phase 2: Compute fine weights for bout period
        # Reset weight carry to initial_weights (fresh start for bout)
        weight_carry = self.get_initial_guardrail_state(initial_weights)

        # Bout scan: process bout prices, output interpolation blocks
        def bout_scan_fn(carry, price):
            est_carry, wt_carry = carry
            new_est_carry, new_wt_carry, interpolation_block = self.calculate_fine_weights_step(
                est_carry, wt_carry, price, params, run_fingerprint
            )
            return (new_est_carry, new_wt_carry), interpolation_block

        # Get bout prices (from chunk start_chunk_idx+1 onwards)
        bout_prices = dynamic_slice(
            chunkwise_price_values,
            (start_chunk_idx + 1, 0),
            (n_bout_chunks, n_assets),
        )

        initial_bout_carry = (warmed_estimator_carry, weight_carry)
        _, interpolation_blocks = scan(
            bout_scan_fn, initial_bout_carry, bout_prices
        )

        # Reshape blocks: (n_bout_chunks, chunk_period, n_assets) -> flat
        fine_weights = interpolation_blocks.reshape(-1, n_assets)

        # Prepend initial weights for first chunk (matching calculate_fine_weights)
        fine_weights = jnp.vstack([
            jnp.ones((chunk_period, n_assets), dtype=jnp.float64) * initial_weights,
            fine_weights,
        ])

        # Final slice to exact bout_length - 1
        weights = dynamic_slice(fine_weights, (0, 0), (bout_length - 1, n_assets))

        return weights


# --- stand-in for a concrete pool (quantammsim's momentum-style rules): an EWMA price
# estimator, weights tilted towards assets above their EWMA, linear interpolation blocks ---
class EWMAPool(TFMMBasePool):
    def calculate_initial_weights(self, params):
        w = jnp.exp(params["initial_weights_logits"])
        return w / w.sum()

    def get_initial_rule_state(self, initial_price, params, run_fingerprint):
        return initial_price

    def calculate_rule_output_step(self, carry, price, params, run_fingerprint):
        lamb = params["lamb"]
        new_ewma = lamb * carry + (1.0 - lamb) * price
        return new_ewma, price / new_ewma - 1.0

    def get_initial_guardrail_state(self, initial_weights):
        return initial_weights

    def calculate_fine_weights_step(self, est_carry, wt_carry, price, params, run_fingerprint):
        new_est_carry, signal = self.calculate_rule_output_step(
            est_carry, price, params, run_fingerprint
        )
        target = jnp.clip(wt_carry + params["k"] * (signal - signal.mean()), 0.05, 0.95)
        target = target / target.sum()
        steps = jnp.arange(1, run_fingerprint["chunk_period"] + 1)[:, None]
        block = wt_carry + (target - wt_carry) * steps / run_fingerprint["chunk_period"]
        return new_est_carry, target, block


if __name__ == "__main__":
    run_fingerprint = {"chunk_period": 60, "bout_length": 1440, "n_assets": 2}
    params = {
        "initial_weights_logits": jnp.zeros(2),
        "lamb": jnp.array(0.9),
        "k": jnp.array(2.0),
    }
    minutes = jnp.arange(4 * 1440)
    prices = jnp.stack([100.0 + jnp.sin(minutes / 300.0), 50.0 + jnp.cos(minutes / 500.0)], axis=1)
    pool = EWMAPool()
    # the training forward pass jits the weight calculation with the bout start traced
    calculate_weights = jax.jit(
        lambda params, prices, start_index: pool.calculate_weights_scan(
            params, run_fingerprint, prices, start_index
        )
    )
    weights = calculate_weights(params, prices, jnp.array([1440, 0]))
    assert weights.shape == (1439, 2)
    assert bool(jnp.allclose(weights.sum(-1), 1.0))
