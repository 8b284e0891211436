# source: https://github.com/gabrielepozzati/complex_assembly/blob/a7c5f273d1398c840c50f3c8bc39df023d8448ac/src/environment.py (driven as in src/ddpg_train.py at the same commit: `rewards, envs.c_lig, envs.contacts, envs.lookup_table = envs.step(actions)` every step, `envs.reset(dataset)` at episode ends)
# observed on jax 0.10.2 CPU: step is jitted with self static, so the ligand clouds self.c_lig and distance maps self.contacts present at the first call are baked into the compiled step; assigning the new clouds back to envs.c_lig / envs.contacts (or calling reset) changes nothing, every later step restarts from the first state
# gap: stale-state-attributes
# stand-ins: cmap_from_cloud (as in src/ops.py), quat_rotation (q p q^-1, same result as src/ops.py's Hamilton-product version); a two-complex synthetic dataset replaces the pickled features
# renamed old APIs: jnp.clip(a_min=, a_max=) -> jnp.clip(min=, max=)
# omitted: GWrapper, get_state and main (jraph graphs, not needed to run step); added: the __main__ block
import sys
import jax
import time
import pickle
import jax.numpy as jnp
from functools import partial
from jax import jit


# ---- stand-ins for src/ops.py ----
def cmap_from_cloud(matrix1, matrix2):
    return jnp.sqrt(jnp.sum((matrix1-matrix2)**2, axis=-1))


def quat_rotation(cloud, q):
    q = q / jnp.linalg.norm(q)
    w, v = q[0], q[1:]
    t = 2 * jnp.cross(v[None, :], cloud)
    return cloud + w * t + jnp.cross(v[None, :], t)
# ---- end of stand-ins ----


class DockingEnv():
    def __init__(self, dataset, PNRG):
        self.key = PNRG
        self.list = list(dataset.keys())

        self.visit_lookup = {
                pdb:jnp.zeros((dataset[pdb]['clouds'][0].shape[0],
                               dataset[pdb]['clouds'][1].shape[0])) \
                for pdb in dataset}


        self.l_rec = {pdb:dataset[pdb]['clouds'][0].shape[0] for pdb in dataset}
        self.l_lig = {pdb:dataset[pdb]['clouds'][1].shape[0] for pdb in dataset}

        self.m_rec = {pdb:jnp.where(dataset[pdb]['masks'][0]>=0.2, 0, 10) \
                for pdb in dataset}
        self.m_lig = {pdb:jnp.where(dataset[pdb]['masks'][1]>=0.2, 0, 10) \
                for pdb in dataset}
        self.g_rec = {pdb:dataset[pdb]['graphs'][0] for pdb in dataset}
        self.g_lig = {pdb:dataset[pdb]['graphs'][1] for pdb in dataset}
        self.c_rec = {pdb:dataset[pdb]['clouds'][0] for pdb in dataset}         

        self.labels = {pdb:jnp.where(
            (dataset[pdb]['interface']<8) & (dataset[pdb]['interface']>=3), 
            1, 0) for pdb in dataset}


    def reset(self, dataset):
        self.c_lig = {pdb:dataset[pdb]['clouds'][1] for pdb in dataset}
        self.contacts = jax.tree_util.tree_map(
                lambda x, y: cmap_from_cloud(x[:,None,:], y[None,:,:]),
                self.c_rec, self.c_lig)


    @partial(jit, static_argnums=(0,))
    def step(self, actions):

        def _step(actions, clouds):
            
            def _one_cloud_step(cloud, action):
                rot_cloud = quat_rotation(cloud, action[:4])
                tr_cloud = rot_cloud+action[None,4:-1]
                return tr_cloud
            
            geom_centers = jax.tree_util.tree_map(
                    lambda x: jnp.sum(x, axis=0)/x.shape[0], 
                    clouds)

            ligand_frames = jax.tree_util.tree_map(lambda x, y: x-y[None,:],
                    clouds, geom_centers)
            

            transformed = jax.tree_util.tree_map(_one_cloud_step, 
                    ligand_frames, actions)

            return jax.tree_util.tree_map(lambda x, y: x+y[None,:],
                    transformed, geom_centers)

        
        def _get_reward(new_cmap, new_cont, real, diff, lookup, action):
            confidence = action[-1]
            
            clashes = jnp.sum(jnp.where(new_cmap<3, 1, 0))

            diff = jnp.sum(diff*jnp.clip(
                        1/2**(8+lookup), min=0.00001, max=0.001))

            match = jnp.sum(jnp.where((new_cont==1) & (real==1), 1, 0))
            mismatch = jnp.sum(jnp.where((new_cont==1) & (real==0), 1, 0))
            
            final_reward = (match-(mismatch+clashes))*confidence
            inner_reward = diff-(clashes*(1-confidence))-jnp.min(new_cmap)
            return inner_reward+final_reward

        new_ligs = _step(actions, self.c_lig)  # expect: JIT201
        new_cmaps = jax.tree_util.tree_map(
                lambda x, y: cmap_from_cloud(x[:,None,:], y[None,:,:]), self.c_rec, new_ligs)
        
        old_cont = jax.tree_util.tree_map(
                lambda x: jnp.where((x<8) & (x>=3), 1, 0), self.contacts)  # expect: JIT201
        new_cont = jax.tree_util.tree_map(
                lambda x: jnp.where((x<8) & (x>=3), 1, 0), new_cmaps)
        diff_contacts = jax.tree_util.tree_map(
                lambda x, y: jnp.where((x==1) & (y==0), 1, 0), new_cont, old_cont)
        updated_lookup = jax.tree_util.tree_map(
                lambda x, y: x+y, self.visit_lookup, diff_contacts)

        reward = jax.tree_util.tree_map(
                _get_reward, new_cmaps, new_cont, self.labels, 
                diff_contacts, self.visit_lookup, actions)
        
        return reward, new_ligs, new_cmaps, updated_lookup


if __name__ == "__main__":
    import numpy as onp

    rng = onp.random.default_rng(0)
    dataset = {}
    for pdb in ("1abc", "2xyz"):
        rec = jnp.asarray(rng.normal(size=(6, 3)) * 3.0, dtype=jnp.float32)
        lig = jnp.asarray(rng.normal(size=(5, 3)) * 3.0 + 6.0, dtype=jnp.float32)
        dataset[pdb] = {
            'clouds': (rec, lig),
            'masks': (jnp.ones(6), jnp.ones(5)),
            'graphs': (None, None),
            'interface': cmap_from_cloud(rec[:, None, :], lig[None, :, :]),
        }
    # translate every ligand by -2 along x, no rotation, confidence 0.5
    actions = {pdb: jnp.array([1., 0., 0., 0., -2., 0., 0., 0.5]) for pdb in dataset}
    fresh_step = DockingEnv.step.__wrapped__  # the same method, run without jit

    def same(a, b):
        return all(bool(jnp.allclose(x, y)) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))

    # the training loop of ddpg_train.py: feed the new clouds and maps back into the env
    envs = DockingEnv(dataset, 42)
    envs.reset(dataset)
    first = envs.step(actions)
    rewards, envs.c_lig, envs.contacts, envs.lookup_table = first
    second = envs.step(actions)
    expected = fresh_step(envs, actions)
    # the self.c_lig read: the ligand should have moved twice (-4 along x); the compiled step moved the first clouds again
    assert same(second[1], first[1]) and not same(second[1], expected[1])
    lig0 = dataset['1abc']['clouds'][1]
    print("x shift after two steps, jitted:", float((second[1]['1abc'] - lig0)[0, 0]),
          "fresh:", float((expected[1]['1abc'] - lig0)[0, 0]))

    # the self.contacts read on its own: only the contact maps change (ligand clouds kept), the compiled step ignores them
    env2 = DockingEnv(dataset, 42)
    env2.reset(dataset)
    env2.step(actions)
    env2.contacts = jax.tree_util.tree_map(lambda x: x + 100.0, env2.contacts)  # no old contacts any more
    stale = env2.step(actions)
    fresh = fresh_step(env2, actions)
    assert not same(stale[3], fresh[3]), "updated_lookup should count the new contacts against the new maps"
    print("lookup counts, jitted:", int(sum(jnp.sum(v) for v in stale[3].values())),
          "fresh:", int(sum(jnp.sum(v) for v in fresh[3].values())))
# observed: line 103 after `envs.c_lig = new_ligs` the jitted step moves the first ligand clouds again (x shift -2.0 after two steps, un-jitted step gives -4.0)
# observed: line 108 after replacing envs.contacts the jitted step still diffs against the first contact maps (lookup count 3, un-jitted step gives 14)
