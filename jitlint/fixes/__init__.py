"""Fixes: the node-level fix model, text edits, fix builders and the edit-applying loop."""
