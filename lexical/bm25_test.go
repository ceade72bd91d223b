package lexical

import (
	"math"
	"testing"
)

func TestSearchRanksExactSymbolFirst(t *testing.T) {
	b := NewBuilder(Field{"content", 1}, Field{"symbol", 2})
	b.Add("def lookup_single(self, key): return self.table[key]", "HueMapping._lookup_single")
	b.Add("def map(self, func): self._map_bivariate(func)", "PairGrid.map")
	b.Add("unrelated text about colors", "palette")
	ix := b.Build()
	hits := ix.Search(QueryTerms("KeyError in _lookup_single"), 0)
	if len(hits) == 0 || hits[0].Doc != 0 {
		t.Fatalf("got hits %v, want doc 0 first", hits)
	}
	for _, h := range hits {
		if h.Doc == 2 {
			t.Errorf("doc 2 matched no term but scored %v", h.Score)
		}
	}
}

func TestScoreByHand(t *testing.T) {
	b := NewBuilder(Field{"content", 1})
	b.Add("alpha beta")
	b.Add("beta gamma gamma")
	ix := b.Build()
	// "gamma": df=1, N=2, idf = ln(1 + (2-1+0.5)/(1+0.5)) = ln 2.
	// doc 1: tf=2, dl=3, avg=2.5.
	want := math.Log(2) * 2 * (K1 + 1) / (2 + K1*(1-B+B*3/2.5))
	got := ix.Scores(map[string]int{"gamma": 1})[1]
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("score = %v, want %v", got, want)
	}
}

func TestDeterministicTies(t *testing.T) {
	b := NewBuilder(Field{"content", 1})
	for i := 0; i < 10; i++ {
		b.Add("same words here")
	}
	ix := b.Build()
	hits := ix.Search(QueryTerms("words"), 3)
	for i, h := range hits {
		if h.Doc != i {
			t.Fatalf("hit %d is doc %d, want %d", i, h.Doc, i)
		}
	}
}
