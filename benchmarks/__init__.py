"""Benchmarks: commands that print figures measured against a baseline in the same run."""
