"""The commands (`run`, `attach`, `render`, `replay`, `export`, `sessions`, `workflows` …) and the
printer they share.
"""
