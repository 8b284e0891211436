# source: https://github.com/wqq0211-git/tau/blob/4913e5d5959068286d241bb07ceae9a243c47a1f/core/ppo.py
#   A JAX PPO trainer class for a batched walking environment: rollouts add Gaussian exploration
#   noise to the policy mean, and every epoch reshuffles the env batch into minibatches.
# observed on jax 0.10.2 CPU: BatchSampler builds its permutation from PRNGKey(0) on every call,
#   so every epoch of every iteration visits the same minibatches in the same order; sample()
#   seeds the exploration noise with int(time.time()), so all steps of a rollout that run within
#   the same second get the identical noise vector (the __main__ block shows both).
#   Changed: `import matplotlib.pyplot as plt` replaced by a small no-op stand-in (matplotlib is
#   not installed); train() is kept but not run; the original's comments and commented-out
#   lines are left out. Added: stand-ins for core.convnet.ACTOR_Net /
#   CRITIC_Net and core.batch_walk.WalkEnv (small linear nets, a toy env), the args dict, the
#   __main__ block.
# gap: other
import os
import time
import jax
import types
import jax.numpy as jnp
from jax import random, tree_util, value_and_grad
import pickle
from jax.scipy.stats import norm

# --- stand-ins (added) --------------------------------------------------------------------
plt = types.SimpleNamespace(clf=lambda: None, plot=lambda *a, **k: None,
                            legend=lambda: None, savefig=lambda *a, **k: None)


class ACTOR_Net:
    def __init__(self, obs_dim, act_dim, n):
        self.obs_dim, self.act_dim = obs_dim, act_dim

    def init_params(self):
        return {"w": jnp.zeros((self.obs_dim, self.act_dim))}

    def __call__(self, params, x):
        return x @ params["w"]


class CRITIC_Net:
    def __init__(self, obs_dim, n):
        self.obs_dim = obs_dim

    def init_params(self):
        return {"w": jnp.zeros((self.obs_dim,))}

    def __call__(self, params, x):
        return x @ params["w"]


class WalkEnv:
    def __init__(self, batch_size):
        self.batch_size, self.obs_dim, self.act_dim = batch_size, 4, 3

    def reset(self):
        return jnp.ones((self.batch_size, self.obs_dim))

    def step(self, actions):
        self.last_actions = actions
        obs = jnp.ones((self.batch_size, self.obs_dim))
        return obs, jnp.zeros((self.batch_size,)), jnp.zeros((self.batch_size,), dtype=bool)
# -------------------------------------------------------------------------------------------


def BatchSampler(num_samples, minibatch_size):
    key = random.PRNGKey(0)  # expect: JIT502
    random_indices = random.permutation(key, num_samples)
    num_batches = num_samples // minibatch_size
    batches = [random_indices[i * minibatch_size:(i + 1) * minibatch_size] for i in range(num_batches)]
    return batches

class DataSet:
    def __init__(self, batch_size, max_trace_len, obs_dim, act_dim):
        self.val = jnp.zeros((batch_size, max_trace_len))
        self.ret = jnp.zeros((batch_size, max_trace_len))
        self.obs = jnp.zeros((batch_size, max_trace_len, obs_dim))
        self.act = jnp.zeros((batch_size, max_trace_len, act_dim))
        self.old_act_mu = jnp.zeros((batch_size, max_trace_len, act_dim))
        self.mean_trace_val = 0
        self.mean_trace_ret = 0
        self.trace_len = 0
        self.batch_size = batch_size
        self.mean_val = 0
        self.mean_ret = 0


class PPO:
    def __init__(self, args):
        self.gamma = args['gamma']
        self.lam = args['lam']
        self.alr = args['alr']
        self.clr = args['clr']
        self.eps = args['eps']
        self.ent_coeff = args['entropy_coeff']
        self.mirror_coeff = args['mirror_coeff']
        self.clip = args['clip']
        self.minibatch_size = args['minibatch_size']
        self.env_batch_size = args['env_batch_size']
        self.epochs = args['epochs']
        self.max_traj_len = args['max_traj_len']
        self.use_gae = args['use_gae']
        self.grad_clip = args['max_grad_norm']
        self.eval_freq = args['eval_freq']
        self.save_path = args['save_dir']
        self.n_itr = args['n_itr']
        self.anneal_rate = args['anneal']
        self.target_kl = args['target_kl']
        self.std = jnp.exp(args['std_dev'])
        self.entropy_penalty = -jnp.mean(-0.5 * jnp.log(2 * jnp.pi * jnp.e * jnp.exp(args['std_dev']) ** 2))
        self.critic_expansion_n = args['critic_expansion_n']
        self.policy_expansion_n = args['policy_expansion_n']
        try:
            os.makedirs(self.save_path)
        except OSError:
            pass
        self.approx_kl_div = 0
        self.coefficient = jnp.array([0.8, 0.2])
        self.eval_fn = os.path.join(self.save_path, 'eval.txt')
        self.env = WalkEnv(self.env_batch_size)
        self.policy = ACTOR_Net(self.env.obs_dim,self.env.act_dim,self.policy_expansion_n)
        self.critic = CRITIC_Net(self.env.obs_dim,self.critic_expansion_n)

        resume_dir = self._resolve_resume_dir(args.get('continued', ''))
        if resume_dir is not None:
            policy_path = os.path.join(resume_dir, "best_policy.pkl")
            critic_path = os.path.join(resume_dir, "best_critic.pkl")
            if os.path.exists(policy_path) and os.path.exists(critic_path):
                print(f"load models from {resume_dir}...")
                with open(policy_path, 'rb') as f:
                    self.policy_params = pickle.load(f)
                with open(critic_path, 'rb') as f:
                    self.critic_params = pickle.load(f)
            else:
                print(f"resume requested, but weights were not found in {resume_dir}. start from scratch.")
                self.policy_params = self.policy.init_params()
                self.critic_params = self.critic.init_params()
        else:
            self.policy_params = self.policy.init_params()
            self.critic_params = self.critic.init_params()
        self.num_samples = self.max_traj_len * self.env_batch_size

    def _resolve_resume_dir(self, continued):
        if isinstance(continued, str):
            continued = continued.strip()
            if continued.lower() in ("", "0", "false", "no", "none"):
                return None
            if continued.lower() in ("1", "true", "yes", "auto"):
                return self.save_path
            return continued
        if continued:
            return self.save_path
        return None

    def _save_checkpoint(self, prefix):
        with open(os.path.join(self.save_path, f"{prefix}_policy.pkl"), 'wb') as f:
            pickle.dump(self.policy_params, f)
        with open(os.path.join(self.save_path, f"{prefix}_critic.pkl"), 'wb') as f:
            pickle.dump(self.critic_params, f)


    def upper_toeplitz_geo(self, n):
        i = jnp.arange(n)[:, None]
        j = jnp.arange(n)[None, :]
        k = j - i
        return jnp.where(k >= 0, self.gamma ** k, 0.0)

    def sample(self, add_noise=True):
        obs = self.env.reset()
        pool = DataSet(self.env_batch_size, self.max_traj_len, self.env.obs_dim, self.env.act_dim)
        dones = jnp.zeros((self.env_batch_size,1), dtype=bool)
        while pool.trace_len<self.max_traj_len and not dones.any():

            prestates = obs.copy()
            actions = self.policy(self.policy_params, prestates)

            pool.old_act_mu = pool.old_act_mu.at[:, pool.trace_len].set(actions)
            if add_noise:
                samples = jax.random.normal(
                    jax.random.PRNGKey(int(time.time())),  # expect: JIT502
                    shape=(self.env.batch_size, self.env.act_dim),
                )
                actions += self.std * samples

            values = self.critic(self.critic_params, prestates)
            
            obs, rewards, dones = self.env.step(actions)
            pool.obs = pool.obs.at[:, pool.trace_len].set(prestates)
            pool.act = pool.act.at[:, pool.trace_len].set(actions)
            pool.ret = pool.ret.at[:, pool.trace_len].set(rewards)
            pool.val = pool.val.at[:, pool.trace_len].set(values)
            pool.trace_len+=1
        pool.ret = pool.ret.at[:, pool.trace_len].set(jnp.where(dones, -5, pool.ret[:, pool.trace_len]))
        mat = self.upper_toeplitz_geo(pool.trace_len)[None, :, :]
        pool.ret = pool.ret.at[:, :pool.trace_len].set(
            jnp.squeeze(mat @ jnp.expand_dims(pool.ret[:, :pool.trace_len], -1)))
        pool.mean_ret = jnp.mean(pool.ret[:, :pool.trace_len])
        pool.mean_val = jnp.mean(pool.val[:, :pool.trace_len])
        return pool


    def calcu_adv(self, policy_params, critic_params,  old_obs_batch,old_act_batch,old_ret_batch,old_val_batch,old_act_mu):
        
        reshaped_old_obs_batch = jnp.reshape(old_obs_batch, (-1, self.env.obs_dim))

        old_adv_batch =  old_ret_batch-old_val_batch
        old_adv_batch = (old_adv_batch - old_adv_batch.mean()) / (old_adv_batch.std() + self.eps)
        new_val = self.critic(critic_params,reshaped_old_obs_batch)
        new_val = jnp.reshape(new_val, old_ret_batch.shape)

        critic_mse_loss = jnp.mean(jnp.square(old_ret_batch - new_val))
        critic_adv = -critic_mse_loss
        
        new_act_mu = self.policy(policy_params, reshaped_old_obs_batch)

        new_act_mu = jnp.reshape(new_act_mu, old_act_batch.shape)


        log_probs = jnp.mean(norm.logpdf(old_act_batch, loc=new_act_mu, scale=self.std), axis=-1)
        old_log_probs = jnp.mean(norm.logpdf(old_act_batch, loc=old_act_mu, scale=self.std), axis=-1)
        log_ratio = log_probs - old_log_probs
        ratio = jnp.exp(log_ratio)  

        clip_ratio = jnp.clip(ratio, 1.0 - self.clip, 1.0 + self.clip)
        actor_adv = jnp.minimum(ratio* old_adv_batch, clip_ratio* old_adv_batch)
        actor_adv = jnp.mean(actor_adv)
        return jnp.dot(jnp.array([actor_adv,critic_adv]),self.coefficient)

    def train(self):
        curr_anneal = 1.0
        highest_reward = 0
        mean_ret = []
        mean_adv=[]
        trace_len = []
        itr = -1
        try:
            for itr in range(self.n_itr):
                if highest_reward > 0.9 and curr_anneal > 0.5:
                    curr_anneal *= self.anneal_rate
                pool = self.sample(add_noise=True)

                total_adv = 0
                adv_n = 0
                for epoch in range(self.epochs):
                    sampler = BatchSampler(self.env_batch_size, self.minibatch_size)
                    for indices in sampler:

                        old_obs_batch = pool.obs[indices,:pool.trace_len]
                        old_act_batch = pool.act[indices,:pool.trace_len]
                        old_ret_batch = pool.ret[indices,:pool.trace_len]
                        old_val_batch = pool.val[indices,:pool.trace_len]
                        old_act_mu = pool.old_act_mu[indices,:pool.trace_len]
                        adv, grads = (value_and_grad(self.calcu_adv, argnums=(0,1))
                                      (self.policy_params, self.critic_params, old_obs_batch,old_act_batch,old_ret_batch,old_val_batch,old_act_mu,))

                        self.policy_params = tree_util.tree_map(lambda p, g: p + self.alr * g, self.policy_params, grads[0])
                        self.critic_params = tree_util.tree_map(lambda p, g: p + self.clr * g, self.critic_params, grads[1])

                        adv_n += 1
                        total_adv += adv

                if itr % 10 == 0:
                    print("********** Iteration {} ************".format(itr))
                    print("trace_lens: ", pool.trace_len)
                    print("mean_ret: ", pool.mean_ret)
                    print("mean_val: ", pool.mean_val)
                    print("mean_adv: ", total_adv / adv_n)
                    print()

                if itr % self.eval_freq == 0:
                    pool = self.sample(add_noise=False)
                    eval_batch_size = min(self.minibatch_size, pool.obs.shape[0])
                    adv = self.calcu_adv(
                        self.policy_params,
                        self.critic_params,
                        pool.obs[:eval_batch_size],
                        pool.act[:eval_batch_size],
                        pool.ret[:eval_batch_size],
                        pool.val[:eval_batch_size],
                        pool.old_act_mu[:eval_batch_size],
                    )
                    trace_len.append(pool.trace_len)
                    mean_ret.append((pool.mean_ret-10)*10)
                    mean_adv.append(adv)
                    plt.clf()
                    xlabel = [i * self.eval_freq for i in range(len(trace_len))]
                    plt.plot(xlabel, mean_ret, color='green', marker='o', label='mean_ret')
                    plt.legend()
                    plt.savefig(os.path.join(self.save_path, "eval.jpg"), bbox_inches='tight')
                    if highest_reward < pool.mean_ret:
                        highest_reward = pool.mean_ret
                        self._save_checkpoint("best")
                        print("save best model:", float(pool.mean_ret))
                        print()
                    else:
                        self._save_checkpoint("last")
                        print("save last model:", float(pool.mean_ret))
                        print()
        except KeyboardInterrupt:
            self._save_checkpoint("interrupt")
            print("\nKeyboardInterrupt at iteration {}. Saved interrupt_policy.pkl and interrupt_critic.pkl.".format(itr))
            raise


if __name__ == "__main__":
    import tempfile
    args = dict(gamma=0.99, lam=0.95, alr=1e-3, clr=1e-3, eps=1e-8, entropy_coeff=0.0,
                mirror_coeff=0.0, clip=0.2, minibatch_size=4, env_batch_size=16, epochs=3,
                max_traj_len=6, use_gae=False, max_grad_norm=1.0, eval_freq=1,
                save_dir=tempfile.mkdtemp(), n_itr=1, anneal=1.0, target_kl=0.01,
                std_dev=-1.0, critic_expansion_n=1, policy_expansion_n=1, continued='')
    ppo = PPO(args)

    # observed: line 65 every epoch's sampler (as train() builds it) is the same permutation
    epochs = [jnp.concatenate(BatchSampler(ppo.env_batch_size, ppo.minibatch_size))  # tolerate: JIT502
              for _ in range(ppo.epochs)]
    assert all(bool((e == epochs[0]).all()) for e in epochs[1:])

    # observed: line 178 the exploration noise (policy mean is 0 here) repeats step after step
    for attempt in range(3):  # retry if the rollout happens to straddle a second boundary
        pool = ppo.sample(add_noise=True)
        noise = pool.act[:, :pool.trace_len]
        same = [bool((noise[:, t] == noise[:, 0]).all()) for t in range(pool.trace_len)]
        if all(same):
            break
    assert all(same), same
    assert float(jnp.abs(noise).sum()) > 0
