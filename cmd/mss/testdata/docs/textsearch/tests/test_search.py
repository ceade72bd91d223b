from textsearch import Index
from textsearch.tokenize import split


def test_snake_case_is_split():
    assert split("lookup_single_value") == ["lookup", "single", "value"]


def test_search_finds_snake_case():
    ix = Index()
    ix.add("a", "def lookup_single_value(table, key): pass")
    ix.add("b", "def unrelated(): pass")
    assert ix.search("lookup_single_value")[0] == "a"
