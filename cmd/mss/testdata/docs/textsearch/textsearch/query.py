"""Parse a query string into the terms to look up."""

from textsearch.tokenize import split


def parse_query(query):
    """The terms of a query: quoted phrases are split like any text, a
    leading minus drops a word."""
    out = []
    for word in query.split():
        if word.startswith("-"):
            continue
        out.extend(split(word.strip('"')))
    return out


def highlight(text, query):
    """Wrap each query term found in text in square brackets."""
    wanted = set(parse_query(query))
    return " ".join("[%s]" % w if w.lower() in wanted else w for w in text.split())
