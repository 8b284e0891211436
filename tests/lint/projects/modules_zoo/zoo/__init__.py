"""Flax and equinox module classes whose __call__ is traced from jitted steps elsewhere."""
