"""Command line: index the files given and answer one query."""

import argparse
import pathlib

from textsearch.index import Index


def main(argv=None):
    parser = argparse.ArgumentParser(prog="textsearch")
    parser.add_argument("query")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    ix = Index()
    for name in args.files:
        ix.add(name, pathlib.Path(name).read_text())
    for doc_id in ix.search(args.query):
        print(doc_id)


if __name__ == "__main__":
    main()
