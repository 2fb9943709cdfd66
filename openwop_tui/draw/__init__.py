"""The drawing primitives both the presentation (`openwop_tui.present`) and the renderers
(`openwop_tui.renderers`) use: the palette a theme gives, safe markdown and safe text (host text
that cannot shape the output). Rich, no Textual; nothing of the pipeline.
"""
