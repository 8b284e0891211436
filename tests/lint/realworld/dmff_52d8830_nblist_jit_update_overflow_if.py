# source: https://github.com/deepmodeling/DMFF/blob/8d5c30ef43515ea69d362f0d3395cb0fa695f0b0/dmff/common/nblist.py
#   (DMFF, a differentiable molecular force field; the parent of commit 52d8830 "fix: fix
#   nblist jit-related bug", whose new test jits the wrapper's update: `jit(nblist.update)(positions)`)
# observed on jax 0.10.2 CPU: `jit(nblist.update)(positions)` stores the traced neighbor list
#   in `self.nblist` (after the call `nblist.nblist.idx` is a leaked tracer) and then raises
#   TracerBoolConversionError at `if self.nblist.did_buffer_overflow:`. Kept verbatim: the
#   NeighborList class, `regularize_pairs` from dmff/utils.py, the fixture's positions and
#   box. Added: stand-ins for jax_md's `space.periodic_general` and
#   `partition.neighbor_list` (not installed): a dense OrderedSparse list of pairs i<j within
#   the cutoff, whose `allocate` sizes the buffer from the concrete positions and whose
#   jittable `update` refills it and sets `did_buffer_overflow`; the `__main__` block
#   (the fixture's allocate, then the test's jitted update).
# gap: other
import dataclasses
from types import SimpleNamespace
from typing import Callable

import numpy as onp
import jax
import jax.numpy as jnp
from jax import jit


# --- stand-ins for jax_md.space and jax_md.partition -------------------------------------
def _periodic_general(box, fractional_coordinates=False):
    box = jnp.asarray(box)

    def displacement_fn(Ra, Rb):
        dR = Ra - Rb
        return dR - box * jnp.round(dR / box)

    def shift_fn(R, dR):
        return jnp.mod(R + dR, box)

    return displacement_fn, shift_fn


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class _JaxMDNeighborList:
    idx: jax.Array
    reference_position: jax.Array
    did_buffer_overflow: jax.Array
    update_fn: Callable = dataclasses.field(metadata=dict(static=True))

    def update(self, positions, **kwargs):
        return self.update_fn(positions, self, **kwargs)


def _neighbor_list(displacement_fn, box, r_cutoff, dr_threshold=0.0, format=None):
    def pair_mask(R):
        d = jax.vmap(jax.vmap(displacement_fn, (None, 0)), (0, None))(R, R)
        dist = jnp.linalg.norm(d, axis=-1)
        n = R.shape[0]
        upper = jnp.arange(n)[:, None] < jnp.arange(n)[None, :]
        return (dist < r_cutoff) & upper

    def fill(R, capacity):
        n = R.shape[0]
        mask = pair_mask(R)
        i, j = jnp.nonzero(mask, size=capacity, fill_value=n)
        overflow = jnp.sum(mask) > capacity
        return jnp.stack([i, j]), overflow

    def update_fn(R, nbrs, **kwargs):
        idx, overflow = fill(R, nbrs.idx.shape[1])
        return _JaxMDNeighborList(idx, R, nbrs.did_buffer_overflow | overflow, update_fn)

    def allocate(R, **kwargs):
        capacity = int(onp.sum(onp.asarray(pair_mask(R))))
        idx, overflow = fill(R, capacity)
        return _JaxMDNeighborList(idx, R, overflow, update_fn)

    return SimpleNamespace(allocate=allocate, update=update_fn)


space = SimpleNamespace(periodic_general=_periodic_general)
partition = SimpleNamespace(neighbor_list=_neighbor_list, OrderedSparse="OrderedSparse")


# --- dmff/utils.py -----------------------------------------------------------------------
def regularize_pairs(p):
    dp = p[1] - p[0]
    dp = jnp.piecewise(dp, (dp <= 0, dp > 0),
                       (lambda x: jnp.array(1), lambda x: jnp.array(0)))
    dp_vec = jnp.array([dp, 2 * dp])
    p = p - dp_vec
    return p


# --- dmff/common/nblist.py ---------------------------------------------------------------
class NeighborList:
    
    def __init__(self, box, rc) -> None:
        """ wrapper of jax_md.space_periodic_general and jax_md.partition.NeighborList

        Args:
            box (jnp.ndarray): A (spatial_dim, spatial_dim) affine transformation or [lx, ly, lz] vector
            rc (float): cutoff radius
        """
        self.box = box
        self.rc = rc
        self.displacement_fn, self.shift_fn = space.periodic_general(box, fractional_coordinates=False)
        self.neighborlist_fn = partition.neighbor_list(self.displacement_fn, box, rc, 0, format=partition.OrderedSparse)
        self.nblist = None
        
    def allocate(self, positions: jnp.ndarray):
        """ A function to allocate a new neighbor list. This function cannot be compiled, since it uses the values of positions to infer the shapes.

        Args:
            positions (jnp.ndarray): particle positions

        Returns:
            jax_md.partition.NeighborList
        """
        if self.nblist is None:
            self.nblist = self.neighborlist_fn.allocate(positions)
        else:
            self.update(positions)
        return self.nblist
    
    def update(self, positions: jnp.ndarray):
        """ A function to update a neighbor list given a new set of positions and a previously allocated neighbor list.

        Args:
            positions (jnp.ndarray): particle positions

        Returns:
            jax_md.partition.NeighborList
        """
        # jit_deco = jit_condition()
        # jit_deco(self.nblist.update)(positions)
        self.nblist = self.nblist.update(positions)  # expect: JIT202
        if self.nblist.did_buffer_overflow:  # expect: JIT101
            self.nblist = self.neighborlist_fn.allocate(positions)
        return self.nblist
    
    @property
    def pairs(self):
        """ get raw pair index

        Returns:
            jnp.ndarray: (nPairs, 2)
        """
        return self.nblist.idx.T
    
    @property
    def pair_mask(self):
        """ get regularized pair index and mask

        Returns:
            (jnp.ndarray, jnp.ndarray): ((nParis, 2), (nPairs, ))
        """

        mask = jnp.sum(self.pairs == len(self.positions), axis=1)
        mask = jnp.logical_not(mask)
        pair = regularize_pairs(self.pairs)
        
        return pair, mask
    
    @property
    def positions(self):
        """ get current positions in current neighborlist

        Returns:
            jnp.ndarray: (n, 3)
        """
        return self.nblist.reference_position
    
    @property
    def dr(self):
        """ get pair distance vector in current neighborlist

        Returns:
            jnp.ndarray: (nPairs, 3)
        """
        pair, _ = self.pair_mask
        return self.positions[pair[:, 0]] - self.positions[pair[:, 1]]
        
    @property
    def distance(self):
        """ get pair distance in current neighborlist
        
        Returns:
            jnp.ndarray: (nPairs, )
        
        """
        return jnp.linalg.norm(self.dr, axis=1)


if __name__ == "__main__":
    import traceback

    positions = jnp.array([
        [12.434,   3.404,   1.540],
        [13.030,   2.664,   1.322],
        [12.312,   3.814,   0.660],
        [14.216,   1.424,   1.103],
        [14.246,   1.144,   2.054],
        [15.155,   1.542,   0.910]
    ])
    box = jnp.array([31.289,   31.289,   31.289])
    r_cutoff = 4.0
    nbobj = NeighborList(box, r_cutoff)
    nbobj.allocate(positions)
    assert nbobj.pairs.shape == (15, 2)

    try:
        jit(nbobj.update)(positions)
    except jax.errors.TracerBoolConversionError as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__]
        # observed: line 134 raises TracerBoolConversionError on the traced overflow flag
        assert frames[-1].lineno == 134
    else:
        raise AssertionError("expected TracerBoolConversionError")
    # observed: line 133 left the traced neighbor list in the object: a leaked tracer
    assert isinstance(nbobj.nblist.idx, jax.core.Tracer)
