"""Modal screens of the chat app."""
