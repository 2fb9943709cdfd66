"""The transcript view and its parts: blocks and their offsets, composed lines, keys, search,
streamed redraws and terminal pixels (`view.TranscriptView` is the widget the app mounts)."""
