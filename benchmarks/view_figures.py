"""The transcript and session figures of ``python -m benchmarks`` (registered on import).

Filled in once the one transcript view and the conversation pipeline land (issue 6).
"""
