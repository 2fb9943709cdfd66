"""The Textual app: composition and routing (`app.py`), its controllers, widgets, screens, messages
and keys. The only package that imports Textual widgets.
"""
