# source: https://github.com/seohongpark/ogbench/blob/3422a6ae3bef0353f8ac2caf7954cc0367ad1033/impls/utils/evaluation.py (pull request https://github.com/seohongpark/ogbench/pull/36, "feat(evaluation): speed up evaluation through optimized RNG seeding", head commit)
# observed on jax 0.10.2 CPU: the PR replaces supply_rng(agent.sample_actions) by a local `@jax.jit def actor_fn` that closes over `agent`; evaluate() is called once per task on every evaluation round (impls/main.py), and every call jits a new actor_fn, so each call traces and compiles again (3 calls with the same agent and shapes: 3 compilations), where agent.sample_actions, jitted once with the agent as an argument, compiles once for all of them
# gap: per-call-recompile
# observed: line 78 every evaluate() call compiles a new actor_fn: 3 calls, at least 3 backend compilations after the first call's warm-up, none with the master version's supply_rng
# changes: evaluation.py kept as in the PR (supply_rng, flatten, add_to, evaluate); stand-ins added for the
# agent (a flax.struct.PyTreeNode with a jitted sample_actions drawing Gaussian actions from a linear policy,
# shaped like GCBCAgent.sample_actions in impls/agents/gcbc.py) and for the environment (a small
# gymnasium-style goal-reaching task with reset(options=...)/step); `__main__` calls evaluate once per task
# as impls/main.py does.
from collections import defaultdict
from typing import Any

import flax
import jax
import jax.numpy as jnp
import numpy as np
from tqdm import trange


def supply_rng(f, rng=jax.random.PRNGKey(0)):
    """Helper function to split the random number generator key before each call to the function."""

    def wrapped(*args, **kwargs):
        nonlocal rng
        rng, key = jax.random.split(rng)
        return f(*args, seed=key, **kwargs)

    return wrapped


def flatten(d, parent_key='', sep='.'):
    """Flatten a dictionary."""
    items = []
    for k, v in d.items():
        new_key = parent_key + sep + k if parent_key else k
        if hasattr(v, 'items'):
            items.extend(flatten(v, new_key, sep=sep).items())
        else:
            items.append((new_key, v))
    return dict(items)


def add_to(dict_of_lists, single_dict):
    """Append values to the corresponding lists in the dictionary."""
    for k, v in single_dict.items():
        dict_of_lists[k].append(v)


def evaluate(
    agent,
    env,
    task_id=None,
    config=None,
    num_eval_episodes=50,
    num_video_episodes=0,
    video_frame_skip=3,
    eval_temperature=0,
    eval_gaussian=None,
):
    """Evaluate the agent in the environment.

    Args:
        agent: Agent.
        env: Environment.
        task_id: Task ID to be passed to the environment.
        config: Configuration dictionary.
        num_eval_episodes: Number of episodes to evaluate the agent.
        num_video_episodes: Number of episodes to render. These episodes are not included in the statistics.
        video_frame_skip: Number of frames to skip between renders.
        eval_temperature: Action sampling temperature.
        eval_gaussian: Standard deviation of the Gaussian noise to add to the actions.

    Returns:
        A tuple containing the statistics, trajectories, and rendered videos.
    """
    key = jax.random.PRNGKey(np.random.randint(0, 2**32))

    @jax.jit  # expect: JIT301
    def actor_fn(*args, key=jax.random.PRNGKey(np.random.randint(0, 2**32)), **kwargs):
        key, subkey = jax.random.split(key)
        return agent.sample_actions(*args, **kwargs, seed=subkey), key

    trajs = []
    stats = defaultdict(list)

    renders = []
    for i in trange(num_eval_episodes + num_video_episodes):
        traj = defaultdict(list)
        should_render = i >= num_eval_episodes

        observation, info = env.reset(options=dict(task_id=task_id, render_goal=should_render))
        goal = info.get('goal')
        goal_frame = info.get('goal_rendered')
        done = False
        step = 0
        render = []
        while not done:
            action, key = actor_fn(observations=observation, goals=goal, temperature=eval_temperature, key=key)
            action = np.array(action)
            if not config.get('discrete'):
                if eval_gaussian is not None:
                    action = np.random.normal(action, eval_gaussian)
                action = np.clip(action, -1, 1)

            next_observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            step += 1

            if should_render and (step % video_frame_skip == 0 or done):
                frame = env.render().copy()
                if goal_frame is not None:
                    render.append(np.concatenate([goal_frame, frame], axis=0))
                else:
                    render.append(frame)

            transition = dict(
                observation=observation,
                next_observation=next_observation,
                action=action,
                reward=reward,
                done=done,
                info=info,
            )
            add_to(traj, transition)
            observation = next_observation
        if i < num_eval_episodes:
            add_to(stats, flatten(info))
            trajs.append(traj)
        else:
            renders.append(np.array(render))

    for k, v in stats.items():
        stats[k] = np.mean(v)

    return stats, trajs, renders


# ---- stand-ins (not part of evaluation.py) ----
class StandInAgent(flax.struct.PyTreeNode):
    """A linear Gaussian goal-conditioned policy, shaped like GCBCAgent.sample_actions."""

    params: Any
    config: Any = flax.struct.field(pytree_node=False)

    @jax.jit
    def sample_actions(self, observations, goals=None, seed=None, temperature=1.0):
        means = jnp.tanh(observations @ self.params['W'] + goals @ self.params['V'])
        noise = jax.random.normal(seed, means.shape)
        actions = means + temperature * jnp.exp(self.params['log_std']) * noise
        if not self.config['discrete']:
            actions = jnp.clip(actions, -1, 1)
        return actions


class StandInGoalEnv:
    """Point mass that must reach a per-task goal within 20 steps."""

    def __init__(self, dim=2, max_steps=20):
        self.dim = dim
        self.max_steps = max_steps

    def reset(self, options=None):
        task_id = options['task_id']
        self.goal = np.full(self.dim, 0.1 * task_id, dtype=np.float32)
        self.pos = np.zeros(self.dim, dtype=np.float32)
        self.t = 0
        return self.pos.copy(), dict(goal=self.goal.copy())

    def step(self, action):
        self.pos = self.pos + 0.1 * np.asarray(action, dtype=np.float32)
        self.t += 1
        success = float(np.linalg.norm(self.pos - self.goal) < 0.05)
        terminated = bool(success)
        truncated = self.t >= self.max_steps
        return self.pos.copy(), success, terminated, truncated, dict(success=success)


if __name__ == "__main__":
    import jax.monitoring

    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, _secs, **_kw: compiles.append(event)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )
    np.random.seed(0)
    config = dict(discrete=False)
    k1, k2 = jax.random.split(jax.random.PRNGKey(0))
    agent = StandInAgent(
        params=dict(W=0.1 * jax.random.normal(k1, (2, 2)), V=jax.random.normal(k2, (2, 2)), log_std=jnp.zeros(2)),
        config=config,
    )
    env = StandInGoalEnv()

    # warm-up: the first task compiles everything once (key creation, splitting, actor_fn)
    evaluate(agent=agent, env=env, task_id=1, config=config, num_eval_episodes=2, eval_temperature=0.0)
    before = len(compiles)
    # impls/main.py evaluates every task in turn, each with a fresh evaluate() call
    for task_id in (2, 3, 4):
        info, trajs, _ = evaluate(agent=agent, env=env, task_id=task_id, config=config,
                                  num_eval_episodes=2, eval_temperature=0.0)
    new = len(compiles) - before
    print("backend compilations in 3 later evaluate() calls:", new)
    assert new >= 3, new

    # the master version: supply_rng(agent.sample_actions) compiles sample_actions once for all calls
    before = len(compiles)
    for task_id in (2, 3, 4):
        actor = supply_rng(agent.sample_actions, rng=jax.random.PRNGKey(np.random.randint(0, 2**32)))
        for _ in range(3):
            np.array(actor(observations=np.zeros(2, np.float32), goals=np.ones(2, np.float32), temperature=0.0))
    print("backend compilations with supply_rng over the same 3 tasks:", len(compiles) - before)
    assert len(compiles) - before == 1, compiles[before:]  # sample_actions, once
    print("observed: actor_fn is compiled again on every evaluate() call")
