"""What the machine and the terminal can do: audio, graphics protocols (kitty, sixel), the terminal
probe, the clipboard, the desktop opener and the capability profile.
"""
