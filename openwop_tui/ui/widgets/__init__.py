"""Textual widgets of the chat app: the transcript, its items, the status line and panels."""
