package segment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// TestFlattenAsTreeSitter: a flattened tree answers every question the
// walk asks as tree-sitter's own nodes do, on the sample files of every
// grammar (and a garbled one), parsed whole and masked.
func TestFlattenAsTreeSitter(t *testing.T) {
	files, _ := filepath.Glob("testdata/src/*")
	srcs := map[string][]byte{
		"garbled.go": []byte("package p\nfunc f(a[b( {\n\tx := }}\n"),
		// A field whose node tree-sitter gives from below a block: a
		// match statement's alternative is a case clause.
		"match.py": []byte("def f(kind):\n    match kind:\n        case \"a\":\n            x = 1\n        case _:\n            x = 2\n    return x\n"),
	}
	for _, p := range files {
		if grammarFor(p) == nil {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[filepath.Base(p)] = b
	}
	for name, src := range srcs {
		g := grammarOf(name, src)
		texts := [][]byte{src}
		if g.mask != nil {
			if m, ok := g.mask(src); ok {
				texts = append(texts, m.text)
			}
		}
		for _, text := range texts {
			checkFlatten(t, name, g, text)
		}
	}
}

// TestFlattenTree is TestFlattenAsTreeSitter over every file of a tree
// named by the environment:
//
//	MSS_FLAT_TREE=/path/to/checkout go test -run FlattenTree ./segment/
func TestFlattenTree(t *testing.T) {
	root := os.Getenv("MSS_FLAT_TREE")
	if root == "" {
		t.Skip("MSS_FLAT_TREE not set")
	}
	for _, f := range treeFiles(t, root) {
		checkFlatten(t, f.path, f.g, f.src)
	}
}

func checkFlatten(t *testing.T, name string, g *grammar, text []byte) {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(g.language())
	tree, err := p.ParseCtx(context.Background(), nil, text)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	root, done := flatten(tree)
	defer done()
	fields := make([]string, 0, len(root.t.names.fields))
	for f := range root.t.names.fields {
		fields = append(fields, f)
	}
	nodes := 0
	var walk func(want *sitter.Node, got *node, path string)
	walk = func(want *sitter.Node, got *node, path string) {
		nodes++
		if w, h := nodeFacts(want), nodeFacts(got); w != h {
			t.Fatalf("%s: node %s:\n tree-sitter %s\n flattened   %s", name, path, w, h)
		}
		if want.Content(text) != got.Content(text) {
			t.Fatalf("%s: node %s: content differs", name, path)
		}
		// Children by field, by position and by named position.
		same := func(what string, w *sitter.Node, h *node) {
			switch {
			case w == nil && h == nil:
			case w == nil || h == nil:
				t.Fatalf("%s: node %s: %s: tree-sitter %v, flattened %v", name, path, what, w != nil, h != nil)
			case w.StartByte() != h.StartByte() || w.EndByte() != h.EndByte() || w.Type() != h.Type():
				t.Fatalf("%s: node %s: %s: tree-sitter %s %d-%d, flattened %s %d-%d", name, path, what,
					w.Type(), w.StartByte(), w.EndByte(), h.Type(), h.StartByte(), h.EndByte())
			}
		}
		for _, f := range fields {
			same("field "+f, want.ChildByFieldName(f), got.ChildByFieldName(f))
			var byCursor []*sitter.Node
			c := sitter.NewTreeCursor(want)
			if c.GoToFirstChild() {
				for {
					if c.CurrentFieldName() == f {
						byCursor = append(byCursor, c.CurrentNode())
					}
					if !c.GoToNextSibling() {
						break
					}
				}
			}
			c.Close()
			flat := fieldChildren(got, f)
			if len(byCursor) != len(flat) {
				t.Fatalf("%s: node %s: %d children under %s, flattened %d", name, path, len(byCursor), f, len(flat))
			}
			for i := range flat {
				same("field child "+f, byCursor[i], flat[i])
			}
		}
		if k := int(want.NamedChildCount()); k < 64 {
			for i := range k + 1 {
				same(fmt.Sprintf("named child %d", i), want.NamedChild(i), got.NamedChild(i))
			}
			if named := namedChildren(got); len(named) != k {
				t.Fatalf("%s: node %s: %d named children, flattened %d", name, path, k, len(named))
			}
		}
		// ts_node_child, as the cursor from the root sees them (a cursor
		// made at a node can name a child by another type: a Python
		// comment after `...` as "block").
		kids := make([]*sitter.Node, want.ChildCount())
		for i := range kids {
			kids[i] = want.Child(i)
		}
		var flat []*node
		for c := got.first(); c != nil; c = c.next() {
			flat = append(flat, c)
		}
		if len(kids) != len(flat) {
			t.Fatalf("%s: node %s: %d children, flattened %d", name, path, len(kids), len(flat))
		}
		for i := range kids {
			same(fmt.Sprintf("child %d", i), kids[i], flat[i])
			walk(kids[i], flat[i], fmt.Sprintf("%s/%d", path, i))
		}
	}
	walk(tree.RootNode(), root, "")
	if nodes != len(root.t.nodes) || root.t.err != nil {
		t.Fatalf("%s: %d nodes, flattened %d (%v)", name, nodes, len(root.t.nodes), root.t.err)
	}
}

// nodeFacts is what a node says of itself, as the walk reads it.
func nodeFacts(n interface {
	Type() string
	StartByte() uint32
	EndByte() uint32
	StartPoint() sitter.Point
	EndPoint() sitter.Point
	IsNamed() bool
	ChildCount() uint32
	NamedChildCount() uint32
}) string {
	return fmt.Sprintf("%s %d-%d %v-%v named=%v %d/%d", n.Type(), n.StartByte(), n.EndByte(),
		n.StartPoint(), n.EndPoint(), n.IsNamed(), n.ChildCount(), n.NamedChildCount())
}
