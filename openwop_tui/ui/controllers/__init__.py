"""The app's parts that own their state: runs, sessions, interrupts, files, the degradation
profile, playback. Each is given what it needs and posts messages back.
"""
