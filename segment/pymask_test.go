package segment

import (
	"bytes"
	"strings"
	"testing"
)

func TestMaskPythonBodies(t *testing.T) {
	src := `import os  # a module


class A(Base):
    """A class."""

    size = compute(1, 2)

    @property
    def f(self, x: int) -> dict[str, int]:  # header
        """Doc with a # and a "quote"."""
        total = call(x,
                     y)  # trailing
        if total:
            return {"a": 1}
        # a comment
        x
        s = 'it''s' \
            + "more"
        return total

    def one(self): return 1


async def g():
    await h()
`
	want := `import os  # a module


class A(Base):
    """A class."""

    size = compute(1, 2)

    @property
    def f(self, x: int) -> dict[str, int]:  # header
        (                                
                       
                                   
                 
                           
                   
         
                     
                    
                   )

    def one(self): return 1


async def g():
    (       )
`
	checkMaskedAs(t, maskPythonBodies, src, want)
}

// TestMaskPythonBodiesBig: the body of a function big enough to be cut at its
// statements is masked statement by statement, its compound statements'
// headers kept, so that every statement starts and ends where it did.
func TestMaskPythonBodiesBig(t *testing.T) {
	body := strings.Repeat("    x = call(1)\n    if x:\n        y = 2  # two\n", 60)
	src := "@dec\ndef big():\n" + body + "    return y\n"
	want := "@dec\ndef big():\n" + strings.Repeat("    (         )\n    if x:\n        (   )  # two\n", 60) + "    (      )\n"
	checkMaskedAs(t, maskPythonBodies, src, want)
}

// TestMaskPythonBodiesRefuses: files that do not lex cleanly are not masked.
func TestMaskPythonBodiesRefuses(t *testing.T) {
	checkRefuses(t, maskPythonBodies, []string{
		"def f():\n    return 'open\n",       // a string not closed on its line
		"def f():\n    x = (1,\n",            // a bracket not closed
		"def f():\n    return 1)\n",          // a bracket closed twice
		"def f():\n\treturn 1\n",             // a tab in indentation
		"def f():\r    return 1\r",           // lone carriage returns
		"def f():\n    s = \"\"\"never\n",    // a triple-quoted string not closed
		"class A:\n    x = 1\n",              // no function
		"def f(): return 1\ndef g(): pass\n", // bodies on the header's line
	})
}

// maskCases are Python sources whose segmentation must not change when
// function bodies are masked for the parse.
var maskCases = []string{
	"def f(a,\n      b):\n    '''doc'''\n    return a + b\n\n\n@dec(1)\n@dec2\ndef g():\n    pass\n",
	"class A:\n    def m(self):\n        def inner():\n            return 1\n        return inner\n    # between\n    def n(self):\n        x = [\n            1,\n        ]\n        return x\n",
	"async def f():\n    async with a as b:\n        await b\n    async for x in y:\n        yield x\n",
	"def f(x):\n    match x:\n        case 1:\n            return 'one'\n        case _:\n            return f'{x!r}'\n",
	"def f():\n    try:\n        g()\n    except (A, B) as e:\n        raise C from e\n    finally:\n        h()\n    # trailing comment\n\n# module comment\nX = 1\n",
	"if TYPE_CHECKING:\n    def f() -> int:\n        return 1\nelse:\n    def f():\n        return 2\n",
	"def f():\n    s = r'\\'' + b\"\\\"\" + '''a\n#not a comment\n'''\n    return s  # done\n",
	"def f():\n    x = 1; y = 2\n    lambda: (x, y)\n    global z\n    return \\\n        x\n",
	"def f(\n    a=lambda: {'k': [1, 2]},\n):\n    return a\n",
	// Big enough to be cut at its statements.
	"def big():\n" + strings.Repeat("    x = call(1, 2, 3)\n    if x:\n        y = [x for x in range(10)]\n", 90) + "    return y\n",
	"def doc():\n    \"\"\"" + strings.Repeat("A long docstring line.\n", 120) + "    \"\"\"\n    return 1\n",
}

// FuzzMaskPythonBodies: masking keeps every byte's offset and every newline,
// changes bytes only to the masking ones, and keeps the logical lines
// (their rows, indentation and kind) but for those it masks whole.
func FuzzMaskPythonBodies(f *testing.F) {
	for _, s := range maskCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got := checkMasked(t, maskPythonBodies, src, " 0()")
		if got == nil {
			return
		}
		// Each logical line of the masked text is one of the source's,
		// or a masked body: from one of its lines to the end of another,
		// holding those between.
		a, _ := pyLogicalLines(src)
		b, ok := pyLogicalLines(got)
		if !ok {
			t.Fatal("the masked text does not lex")
		}
		k := 0
		for i, x := range a {
			if k < len(b) && b[k].start == x.start {
				y := b[k]
				masked := !bytes.Equal(got[y.start:y.end], src[y.start:y.end])
				if x.first != y.first || x.indent != y.indent || (!masked && x != y) {
					t.Fatalf("logical line %d: %+v became %+v", i, x, y)
				}
				k++
				continue
			}
			if k == 0 || x.first < b[k-1].first || x.last > b[k-1].last {
				t.Fatalf("logical line %d (%+v) is in no masked one", i, x)
			}
		}
		if k != len(b) {
			t.Fatalf("%d logical lines masked, %d of them match the source's", len(b), k)
		}
	})
}
