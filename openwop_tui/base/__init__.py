"""Python plumbing every floor may use, of no trust and no protocol: the floor below them all.
Imports nothing of the project.
"""
