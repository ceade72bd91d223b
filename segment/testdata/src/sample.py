"""Module doc."""
import os
from . import util
from a.b import c as d, e

X = 1  # trailing


# A comment about f.
@decorator
def f(x):
    """Doc."""
    return util.g(x) + helper_fn(x)


class Foo(Base):
    """Class doc."""
    attr = 3

    def __init__(self):
        self.y = 1

    @property
    def bar(self):
        return self.y

    other = 5

if __name__ == "__main__":
    f(X)
