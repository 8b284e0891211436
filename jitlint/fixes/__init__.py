"""Fixes: the node-level fix model, text edits, fix builders and applying edits to text."""
