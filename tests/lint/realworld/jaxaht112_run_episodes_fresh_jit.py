# source: https://github.com/LARG/jax-aht/pull/112 (code before the fix: https://github.com/LARG/jax-aht/blob/8c93ac437874e6ba675ced8ce5e4b28ee838ae61/common/run_episodes.py and evaluation/heldout_evaluator.py)
# observed on jax 0.10.2 CPU: run_episodes builds a new jax.jit(jax.vmap(lambda ...)) object on every call, so every heldout partner (and every repeated evaluation with the same partner) compiles again; the PR measured ~16s of XLA compile per partner
# gap: per-call-recompile
# observed: line 192 the jax.jit object is new on every run_episodes call: an identical second eval_egos_vs_heldouts over 2 partners does 2 more backend compiles (one per partner) instead of 0
# added: imports, a two-agent ToyEnv and a ToyPolicy standing in for the JaxMARL env + LogWrapper and the jax-aht policy classes, a small config,
#        the __main__ block; eval_egos_vs_heldouts is trimmed (no return normalisation, tree_stack replaced by jax.tree.map(jnp.stack))
import time
from functools import partial

import jax
import jax.numpy as jnp


class _Discrete:
    def __init__(self, n):
        self.n = n


class ToyEnv:
    """Stand-in for a JaxMARL two-player env wrapped in LogWrapper."""
    agents = ["agent_0", "agent_1"]
    num_agents = 2

    def action_space(self, agent):
        return _Discrete(3)

    def reset(self, key):
        pos = jax.random.uniform(key, (2,))
        obs = {a: pos for a in self.agents}
        return obs, {"pos": pos, "t": jnp.zeros((), jnp.int32), "ret": jnp.zeros(())}

    def get_avail_actions(self, state):
        return {a: jnp.ones((3,), dtype=bool) for a in self.agents}

    def step(self, key, state, actions):
        pos = state["pos"] + 0.1 * (actions["agent_0"] - actions["agent_1"])
        t = state["t"] + 1
        r = -jnp.abs(pos).sum()
        new_state = {"pos": pos, "t": t, "ret": state["ret"] + r}
        obs = {a: pos for a in self.agents}
        reward = {a: r for a in self.agents}
        d = t >= 5
        done = {"agent_0": d, "agent_1": d, "__all__": d}
        info = {"returned_episode_returns": new_state["ret"]}
        return obs, new_state, reward, done, info


class ToyPolicy:
    """Stand-in for a jax-aht policy (init_hstate / get_action)."""

    def init_hstate(self, batch_size, aux_info=None):
        return jnp.zeros((1, batch_size, 4))

    def get_action(self, params, obs, done, avail_actions, hstate, rng, aux_obs=None,
                   env_state=None, test_mode=False):
        logits = obs.reshape(-1) @ params["w"]
        act = jax.random.categorical(rng, logits)
        return act.reshape(1, 1), hstate


def run_single_episode(rng, env, agent_0_param, agent_0_policy,
                       agent_1_param, agent_1_policy,
                       max_episode_steps, agent_0_test_mode=False, agent_1_test_mode=False):
    # Reset the env.
    rng, reset_rng = jax.random.split(rng)
    init_obs, init_env_state = env.reset(reset_rng)
    init_done = {k: jnp.zeros((1), dtype=bool) for k in env.agents + ["__all__"]}
    init_act_onehot = {k: jnp.zeros((env.action_space(env.agents[i]).n)) for i, k in enumerate(env.agents)}
    init_reward = {k: jnp.zeros((1)) for i, k in enumerate(env.agents)}
    init_joint_act_onehot = jnp.concatenate((init_act_onehot["agent_0"].reshape(1, 1, -1),
                                             init_act_onehot["agent_1"].reshape(1, 1, -1)), axis=-1)

    # Initialize hidden states. Agent id is passed as part of the hstate initialization to support heuristic agents.
    init_hstate_0 = agent_0_policy.init_hstate(1, aux_info={"agent_id": 0})
    init_hstate_1 = agent_1_policy.init_hstate(1, aux_info={"agent_id": 1})

    # Get available actions for agent 0 from environment state
    avail_actions = env.get_avail_actions(init_env_state)
    avail_actions = jax.lax.stop_gradient(avail_actions)
    avail_actions_0 = avail_actions["agent_0"].astype(jnp.float32)
    avail_actions_1 = avail_actions["agent_1"].astype(jnp.float32)

    # Do one step to get a dummy info structure
    rng, act0_rng, act1_rng, step_rng = jax.random.split(rng, 4)

    # Get ego action
    act_0, hstate_0 = agent_0_policy.get_action(
        params=agent_0_param,
        obs=init_obs["agent_0"].reshape(1, 1, -1),
        done=init_done["agent_0"].reshape(1, 1),
        avail_actions=avail_actions_0,
        hstate=init_hstate_0,
        rng=act0_rng,
        aux_obs=(init_act_onehot["agent_0"].reshape(1, 1, -1), init_joint_act_onehot, init_reward["agent_0"].reshape(1, 1, -1)),
        env_state=init_env_state,
        test_mode=agent_0_test_mode
    )
    act_0 = act_0.squeeze()

    # Get partner action using the underlying policy class's get_action method directly
    act_1, hstate_1 = agent_1_policy.get_action(
        params=agent_1_param,
        obs=init_obs["agent_1"].reshape(1, 1, -1),
        done=init_done["agent_1"].reshape(1, 1),
        avail_actions=avail_actions_1,
        hstate=init_hstate_1,  # shape of entry 0 is (1, 1, 8)
        rng=act1_rng,
        aux_obs=None,
        env_state=init_env_state,
        test_mode=agent_1_test_mode
    )
    act_1 = act_1.squeeze()

    both_actions = [act_0, act_1]
    env_act = {k: both_actions[i] for i, k in enumerate(env.agents)}
    env_act_onehot = {k: jax.nn.one_hot(both_actions[i], env.action_space(env.agents[i]).n) for i, k in enumerate(env.agents)}
    obs, env_state, reward, done, dummy_info = env.step(step_rng, init_env_state, env_act)

    # We'll use a scan to iterate steps until the episode is done.
    ep_ts = 1
    init_carry = (ep_ts, env_state, obs, rng, done, reward, env_act_onehot, hstate_0, hstate_1, dummy_info)
    def scan_step(carry, _):
        def take_step(carry_step):
            ep_ts, env_state, obs, rng, done, reward, act_onehot, hstate_0, hstate_1, last_info = carry_step
            # Get available actions for agent 0 from environment state
            avail_actions = env.get_avail_actions(env_state)
            avail_actions = jax.lax.stop_gradient(avail_actions)
            avail_actions_0 = avail_actions["agent_0"].astype(jnp.float32)
            avail_actions_1 = avail_actions["agent_1"].astype(jnp.float32)

            joint_act_onehot = jnp.concatenate((act_onehot["agent_0"].reshape(1, 1, -1),
                                                act_onehot["agent_1"].reshape(1, 1, -1)), axis=-1)

            # Get ego action
            rng, act0_rng, act1_rng, step_rng = jax.random.split(rng, 4)
            act_0, hstate_0_next = agent_0_policy.get_action(
                params=agent_0_param,
                obs=obs["agent_0"].reshape(1, 1, -1),
                done=done["agent_0"].reshape(1, 1),
                avail_actions=avail_actions_0,
                hstate=hstate_0,
                rng=act0_rng,
                aux_obs=(act_onehot["agent_0"].reshape(1, 1, -1), joint_act_onehot, reward["agent_0"].reshape(1, 1, -1)),
                env_state=env_state,
                test_mode=agent_0_test_mode
            )
            act_0 = act_0.squeeze()

            # Get partner action with proper hidden state tracking
            act_1, hstate_1_next = agent_1_policy.get_action(
                params=agent_1_param,
                obs=obs["agent_1"].reshape(1, 1, -1),
                done=done["agent_1"].reshape(1, 1),
                avail_actions=avail_actions_1,
                hstate=hstate_1,
                rng=act1_rng,
                env_state=env_state,
                test_mode=agent_1_test_mode
            )
            act_1 = act_1.squeeze()

            both_actions = [act_0, act_1]
            env_act = {k: both_actions[i] for i, k in enumerate(env.agents)}
            env_act_onehot = {k: jax.nn.one_hot(both_actions[i], env.action_space(env.agents[i]).n) for i, k in enumerate(env.agents)}
            obs_next, env_state_next, reward, done_next, info_next = env.step(step_rng, env_state, env_act)

            return (ep_ts + 1, env_state_next, obs_next, rng, done_next, reward, env_act_onehot, hstate_0_next, hstate_1_next, info_next)

        ep_ts, env_state, obs, rng, done, reward, act_onehot, hstate_0, hstate_1, last_info = carry
        new_carry = jax.lax.cond(
            done["__all__"],
            lambda curr_carry: curr_carry, # True fn
            take_step, # False fn
            operand=carry
        )
        return new_carry, None

    final_carry, _ = jax.lax.scan(
        scan_step, init_carry, None, length=max_episode_steps)
    # Return the final info (which includes the episode return via LogWrapper).
    return final_carry[-1]

def run_episodes(rng, env, agent_0_param, agent_0_policy,
                 agent_1_param, agent_1_policy,
                 max_episode_steps, num_eps, agent_0_test_mode=False, agent_1_test_mode=False):
    '''Given a single ego agent and a single partner agent, run num_eps episodes in parallel using vmap.'''
    # Create episode-specific RNGs
    rngs = jax.random.split(rng, num_eps + 1)
    ep_rngs = rngs[1:]

    # Vectorize run_single_episode over the first argument (rng)
    vmap_run_single_episode = jax.jit(jax.vmap(  # expect: JIT301
        lambda ep_rng: run_single_episode(
            ep_rng, env, agent_0_param, agent_0_policy,
            agent_1_param, agent_1_policy, max_episode_steps,
            agent_0_test_mode, agent_1_test_mode
        )
    ))
    # Run episodes in parallel
    all_outs = vmap_run_single_episode(ep_rngs)
    return all_outs  # each leaf has shape (num_eps, ...)


def eval_egos_vs_heldouts(config, env, rng, num_episodes, ego_policy, ego_params,
                          heldout_agent_list, heldout_agent_names=None, ego_test_mode=False):
    '''Evaluate all ego agents against all heldout partners using vmap over egos.
    Ego_params must be a pytree of shape (num_ego_agents, ...)
    '''
    num_agents = env.num_agents
    assert num_agents == 2, "This eval code assumes exactly 2 agents."

    num_ego_agents = jax.tree.leaves(ego_params)[0].shape[0]
    num_partner_total = len(heldout_agent_list)

    def _eval_ego_vs_one_partner(single_ego_policy, single_ego_params, rng_for_ego,
                                     heldout_policy, heldout_params, heldout_test_mode):
        return run_episodes(rng_for_ego, env,
                            agent_0_policy=single_ego_policy, agent_0_param=single_ego_params,
                            agent_1_policy=heldout_policy, agent_1_param=heldout_params,
                            max_episode_steps=config["global_heldout_settings"]["MAX_EPISODE_STEPS"],
                            num_eps=num_episodes,
                            agent_0_test_mode=ego_test_mode,
                            agent_1_test_mode=heldout_test_mode)

    # Outer Python loop over heterogeneous heldout partners
    all_metrics_for_partners = []
    rng, sub_rng = jax.random.split(rng)
    partner_rngs = jax.random.split(sub_rng, num_partner_total)
    start_time = time.time()

    for partner_idx in range(num_partner_total):
        heldout_policy, heldout_params, heldout_test_mode, heldout_performance_bounds = heldout_agent_list[partner_idx]
        ego_rngs = jax.random.split(partner_rngs[partner_idx], num_ego_agents)

        # Use partial to fix the heldout agent for the function being vmapped
        func_to_vmap = partial(_eval_ego_vs_one_partner,
                               heldout_policy=heldout_policy,
                               heldout_params=heldout_params,
                               heldout_test_mode=heldout_test_mode)

        # vmap over the stacked ego agents and their RNGs
        results_for_this_partner = jax.vmap(
            func_to_vmap,
            in_axes=(None, 0, 0) # Map over axis 0 of ego_policies, ego_params, ego_rngs
        )(ego_policy, ego_params, ego_rngs)

        all_metrics_for_partners.append(results_for_this_partner)

    end_time = time.time()
    print(f"Time taken for vmap evaluation loop: {end_time - start_time:.2f} seconds")

    # Result shape: (num_partners, num_egos, num_episodes, ...)
    final_metrics = jax.tree.map(lambda *xs: jnp.stack(xs), *all_metrics_for_partners)
    # Transpose to (num_egos, num_partners, num_episodes, ...)
    final_metrics = jax.tree.map(lambda x: x.transpose(1, 0, 2), final_metrics)

    return final_metrics


if __name__ == "__main__":
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, secs, **kw: compiles.append(name)
        if name == "/jax/core/compile/backend_compile_duration" else None)

    env = ToyEnv()
    policy = ToyPolicy()
    config = {"global_heldout_settings": {"MAX_EPISODE_STEPS": 8}}
    key = jax.random.PRNGKey(0)
    ego_params = {"w": jax.random.normal(key, (3, 2, 3))}   # 3 ego agents
    # two heldout partners of the same policy class and parameter shapes
    heldout = [(policy, {"w": jax.random.normal(jax.random.PRNGKey(i), (2, 3))}, False, None)
               for i in range(1, 3)]

    before = len(compiles)
    eval_egos_vs_heldouts(config, env, key, 4, policy, ego_params, heldout)
    first = len(compiles) - before
    before = len(compiles)
    eval_egos_vs_heldouts(config, env, key, 4, policy, ego_params, heldout)
    second = len(compiles) - before
    print("backend compiles, first evaluation over 2 partners:", first)
    print("backend compiles, identical second evaluation:", second)
    # every partner compiles again, even on an identical repeat evaluation
    assert second >= len(heldout), second
