"""Plain-text helpers for what the commands print and draw. No spaCy."""


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "…" where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
