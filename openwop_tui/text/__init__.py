"""The trust functions for text: cleaning host strings for a terminal, cleaning markdown after
parsing, masking secrets, and units as people read them. Imports nothing of the project above
it.
"""
