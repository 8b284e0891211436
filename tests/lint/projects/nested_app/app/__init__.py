"""Nested subpackages reached through relative imports, star imports and re-exports."""
