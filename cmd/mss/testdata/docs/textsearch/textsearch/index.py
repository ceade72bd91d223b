"""An inverted index ranked with BM25."""

import math
from collections import Counter, defaultdict

from textsearch.tokenize import terms


class Index:
    """Documents by id, with their term counts and an inverted index."""

    def __init__(self, k1=1.2, b=0.75):
        self.k1 = k1
        self.b = b
        self.docs = {}
        self.postings = defaultdict(dict)

    def add(self, doc_id, text):
        """Index a document, replacing any earlier text under the same id."""
        if doc_id in self.docs:
            self.remove(doc_id)
        counts = Counter(terms(text))
        self.docs[doc_id] = sum(counts.values())
        for term, n in counts.items():
            self.postings[term][doc_id] = n

    def remove(self, doc_id):
        """Forget a document."""
        self.docs.pop(doc_id, None)
        for docs in self.postings.values():
            docs.pop(doc_id, None)

    def idf(self, term):
        """Inverse document frequency of a term."""
        n = len(self.postings.get(term, {}))
        return math.log(1 + (len(self.docs) - n + 0.5) / (n + 0.5))

    def search(self, query, limit=10):
        """Rank documents for a query string, best first."""
        from textsearch.query import parse_query

        avg = sum(self.docs.values()) / max(len(self.docs), 1)
        scores = Counter()
        for term in parse_query(query):
            idf = self.idf(term)
            for doc_id, tf in self.postings.get(term, {}).items():
                norm = tf + self.k1 * (1 - self.b + self.b * self.docs[doc_id] / avg)
                scores[doc_id] += idf * tf * (self.k1 + 1) / norm
        return [doc_id for doc_id, _ in scores.most_common(limit)]
