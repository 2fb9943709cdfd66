"""The model and the conversation pipeline: items, the transcript fold, the session, chat history,
the interrupt answers. No Rich, no Textual.
"""
