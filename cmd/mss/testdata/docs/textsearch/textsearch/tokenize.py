"""Split text into the terms the index stores and queries look up."""

import re

WORD = re.compile(r"[A-Za-z0-9_]+")
STOP = {"a", "an", "and", "the", "of", "to", "in", "is"}


def split(text):
    """Split text into lower-case words; snake_case names are split at
    underscores, camelCase names are kept whole."""
    words = []
    for match in WORD.finditer(text):
        for part in match.group(0).split("_"):
            if part:
                words.append(part.lower())
    return words


def terms(text):
    """The terms of a document: its words without stop words."""
    return [w for w in split(text) if w not in STOP]


def identifiers(text):
    """Identifier-like words as written, at least two characters long."""
    return [m.group(0) for m in WORD.finditer(text) if len(m.group(0)) > 1]
