"""Analysis: module facts, transforms, the taint evaluator and the walk that runs rule hooks."""
