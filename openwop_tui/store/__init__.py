"""What is kept: sessions in SQLite (the event log), recordings, exports, the app's own state and
saved over-cap text. No Rich, no Textual.
"""
