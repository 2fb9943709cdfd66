"""OpenClaw's rich-output directives in assistant text: the reader, its syntax, the link policy and
the items they become.
"""
