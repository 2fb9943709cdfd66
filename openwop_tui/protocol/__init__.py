"""Talking to OpenWOP hosts: discovery, runs, the event stream, envelopes and the media policy.

Nothing in this package imports Textual or Rich widgets: it is the sans-IO core (SSE decoding,
event normalisation, envelope extraction) plus the httpx client around it, shared by the app and
the command-line commands.
"""
