"""A small full-text search library."""

from textsearch.index import Index
from textsearch.query import parse_query

__all__ = ["Index", "parse_query"]
