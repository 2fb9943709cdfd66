"""Rich, no Textual: how transcript items and envelopes become renderables, for every sink (the
app, the printed commands, the export).
"""
