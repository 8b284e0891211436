"""Output: the report formats (concise, full, json, github, sarif)."""
