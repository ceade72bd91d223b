package segment

/*
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

// The part of tree-sitter's C API (api.h of the go-tree-sitter version
// go.mod pins) that flattening uses; go-tree-sitter compiles and links it.
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct TSLanguage TSLanguage;
typedef struct TSTree TSTree;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

TSTreeCursor ts_tree_cursor_new(TSNode);
void ts_tree_cursor_delete(TSTreeCursor *);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *);
const char *ts_node_type(TSNode);
bool ts_node_is_named(TSNode);
uint32_t ts_node_start_byte(TSNode);
uint32_t ts_node_end_byte(TSNode);
TSPoint ts_node_start_point(TSNode);
TSPoint ts_node_end_point(TSNode);
uint32_t ts_node_descendant_count(TSNode);
uint32_t ts_node_child_count(TSNode);
uint32_t ts_node_named_child_count(TSNode);
void ts_tree_cursor_reset(TSTreeCursor *, TSNode);
TSNode ts_node_child_by_field_id(TSNode, TSFieldId);
const TSLanguage *ts_node_language(TSNode);
uint32_t ts_language_symbol_count(const TSLanguage *);
const char *ts_language_symbol_name(const TSLanguage *, TSSymbol);
uint32_t ts_language_field_count(const TSLanguage *);
const char *ts_language_field_name_for_id(const TSLanguage *, TSFieldId);

// One node of a flattened tree: the node itself but for its tree, which
// is the tree's cursor's (its id kept as a number), what the walk reads
// of it (its type as the address of the
// grammar's name), its preorder index and those of its first child and
// next sibling (-1 for none).
typedef struct {
	uint32_t ctx[4];
	uintptr_t id, type_name;
	uint32_t start_byte, end_byte;
	uint32_t start_row, start_col, end_row, end_col;
	uint32_t index;
	int32_t first, next;
	uint32_t child_count, named_count;
	TSFieldId field;
	uint8_t flags;
} mss_node;

enum { mss_named = 1, mss_expanded = 2 };

static TSNode mss_ts(const mss_node *r, const TSTreeCursor *c) {
	TSNode n;
	memcpy(n.context, r->ctx, sizeof n.context);
	n.id = (const void *)r->id;
	n.tree = (const TSTree *)c->tree;
	return n;
}

// mss_fill writes node, the k-th in preorder, into r.
static void mss_fill(mss_node *r, TSNode node, uint32_t k, TSFieldId field) {
	memcpy(r->ctx, node.context, sizeof r->ctx);
	r->id = (uintptr_t)node.id;
	r->type_name = (uintptr_t)ts_node_type(node);
	r->start_byte = ts_node_start_byte(node);
	r->end_byte = ts_node_end_byte(node);
	TSPoint p = ts_node_start_point(node);
	r->start_row = p.row;
	r->start_col = p.column;
	p = ts_node_end_point(node);
	r->end_row = p.row;
	r->end_col = p.column;
	r->child_count = ts_node_child_count(node);
	r->named_count = ts_node_named_child_count(node);
	r->index = k;
	r->first = r->child_count > 0 ? (int32_t)k + 1 : -1;
	r->next = -1;
	r->field = field;
	r->flags = ts_node_is_named(node) ? mss_named : 0;
}

// mss_expand writes the children of r's node, the k-th in preorder, at
// base + index*stride, each at its own preorder index (up to count), and
// marks the node expanded. It returns how many it wrote.
static uint32_t mss_expand(TSTreeCursor *c, mss_node *r, char *base, size_t stride, uint32_t count) {
	r->flags |= mss_expanded;
	// The cursor starts at the node. It gives its start's alias to the
	// extras among the children (ts_tree_cursor_current_node), which
	// have none as ts_node_child gives them, and the node itself is
	// never read from it: its alias is left out (context[3]).
	TSNode at = mss_ts(r, c);
	at.context[3] = 0;
	ts_tree_cursor_reset(c, at);
	if (!ts_tree_cursor_goto_first_child(c)) {
		return 0;
	}
	uint32_t i = r->index + 1, n = 0;
	mss_node *prev = NULL;
	do {
		if (i >= count) {
			return n;
		}
		TSNode node = ts_tree_cursor_current_node(c);
		mss_node *child = (mss_node *)(base + (size_t)i*stride);
		mss_fill(child, node, i, ts_tree_cursor_current_field_id(c));
		if (prev != NULL) {
			prev->next = (int32_t)i;
		}
		prev = child;
		n++;
		i += ts_node_descendant_count(node);
	} while (ts_tree_cursor_goto_next_sibling(c));
	return n;
}

// mss_child_by_field is the node tree-sitter gives under the field of
// r's node, of c's tree: its id (0 for none) and bytes.
static uintptr_t mss_child_by_field(const mss_node *r, const TSTreeCursor *c, TSFieldId field, uint32_t *start, uint32_t *end) {
	TSNode n = ts_node_child_by_field_id(mss_ts(r, c), field);
	if (n.id != NULL) {
		*start = ts_node_start_byte(n);
		*end = ts_node_end_byte(n);
	}
	return (uintptr_t)n.id;
}

*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// A syntax tree flattened into one array, so that walking it costs few
// calls into C: a node's type, span, children and fields are read from
// Go memory. A node's children are written there the first time they
// are asked for, each at its preorder index, by one call that walks
// them with a cursor. The tree-sitter tree it was made from stays open
// while it is walked (ChildByFieldName asks it).
type tree struct {
	nodes  []node
	names  *langNames
	cursor C.TSTreeCursor
	err    error // where the flattened tree and tree-sitter's disagree
}

// node is a node of a flattened tree; its methods are those of
// tree-sitter's Node that segmenting uses, with the same results.
type node struct {
	c C.mss_node // written by mss_fill
	t *tree
}

// langNames are a grammar's node type names (by the address of the
// grammar's string, which ts_node_type gives) and field ids.
type langNames struct {
	types  map[uintptr]string
	fields map[string]C.TSFieldId
}

var languages sync.Map // C.TSLanguage address → *langNames

func namesOf(l *C.TSLanguage) *langNames {
	if v, ok := languages.Load(uintptr(unsafe.Pointer(l))); ok {
		return v.(*langNames)
	}
	n := &langNames{types: map[uintptr]string{}, fields: map[string]C.TSFieldId{}}
	name := func(s C.TSSymbol) {
		if p := C.ts_language_symbol_name(l, s); p != nil {
			n.types[uintptr(unsafe.Pointer(p))] = C.GoString(p)
		}
	}
	for s := range C.uint32_t(C.ts_language_symbol_count(l)) {
		name(C.TSSymbol(s))
	}
	name(0xFFFF) // ERROR
	name(0xFFFE) // _ERROR
	for id := C.uint32_t(1); id <= C.ts_language_field_count(l); id++ {
		if name := C.ts_language_field_name_for_id(l, C.TSFieldId(id)); name != nil {
			n.fields[C.GoString(name)] = C.TSFieldId(id)
		}
	}
	v, _ := languages.LoadOrStore(uintptr(unsafe.Pointer(l)), n)
	return v.(*langNames)
}

// flatten returns t's tree flattened, its root first; close releases
// what it holds.
func flatten(t *sitter.Tree) (root *node, close func()) {
	// A go-tree-sitter Node holds the C node as its first field.
	r := *(*C.TSNode)(unsafe.Pointer(t.RootNode()))
	ft := &tree{nodes: make([]node, C.ts_node_descendant_count(r)), cursor: C.ts_tree_cursor_new(r)}
	// The nodes, passed to C to be written, point to the tree: pinned,
	// as cgo's rules ask of Go pointers in memory passed to C.
	var pin runtime.Pinner
	pin.Pin(ft)
	root = &ft.nodes[0]
	C.mss_fill(&root.c, r, 0, 0)
	root.t = ft
	ft.names = namesOf(C.ts_node_language(r))
	return root, func() {
		C.ts_tree_cursor_delete(&ft.cursor)
		pin.Unpin()
	}
}

// expand writes n's children.
func (t *tree) expand(n *node) {
	// C writes the records, and nothing else.
	got := C.mss_expand(&t.cursor, &n.c, (*C.char)(unsafe.Pointer(&t.nodes[0].c)), C.size_t(unsafe.Sizeof(node{})), C.uint32_t(len(t.nodes)))
	if got != n.c.child_count {
		// Never seen: the walk goes on as if the node had no children,
		// and the file is not segmented from this tree (tree.err).
		if t.err == nil {
			t.err = fmt.Errorf("a %s node of %d children walked as %d", n.Type(), n.c.child_count, got)
		}
		n.c.first, n.c.child_count, n.c.named_count = -1, 0, 0
		return
	}
	for c := n.c.first; c >= 0; c = t.nodes[c].c.next {
		t.nodes[c].t = t
	}
}

func (n *node) Type() string { return n.t.names.types[uintptr(n.c.type_name)] }

func (n *node) StartByte() uint32 { return uint32(n.c.start_byte) }
func (n *node) EndByte() uint32   { return uint32(n.c.end_byte) }

func (n *node) StartPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.c.start_row), Column: uint32(n.c.start_col)}
}

func (n *node) EndPoint() sitter.Point {
	return sitter.Point{Row: uint32(n.c.end_row), Column: uint32(n.c.end_col)}
}

func (n *node) Content(src []byte) string { return string(src[n.c.start_byte:n.c.end_byte]) }

func (n *node) IsNamed() bool { return n.c.flags&C.mss_named != 0 }

func (n *node) ChildCount() uint32      { return uint32(n.c.child_count) }
func (n *node) NamedChildCount() uint32 { return uint32(n.c.named_count) }

// first is n's first child, nil if it has none.
func (n *node) first() *node {
	if n.c.first < 0 {
		return nil
	}
	if n.c.flags&C.mss_expanded == 0 {
		n.t.expand(n)
	}
	return &n.t.nodes[n.c.first]
}

// next is n's next sibling, nil if it is the last.
func (n *node) next() *node {
	if n.c.next < 0 {
		return nil
	}
	return &n.t.nodes[n.c.next]
}

// NamedChild is n's i-th named child, nil if it has fewer.
func (n *node) NamedChild(i int) *node {
	for c := n.first(); c != nil; c = c.next() {
		if c.IsNamed() {
			if i == 0 {
				return c
			}
			i--
		}
	}
	return nil
}

// ChildByFieldName is the child tree-sitter gives for the field, nil if
// none.
func (n *node) ChildByFieldName(name string) *node {
	id, ok := n.t.names.fields[name]
	if !ok || n.c.child_count == 0 {
		return nil
	}
	var start, end C.uint32_t
	want := C.mss_child_by_field(&n.c, &n.t.cursor, id, &start, &end)
	if want == 0 {
		return nil
	}
	f := n.find(want, start, end)
	if f == nil && n.t.err == nil {
		// Never seen, as in expand.
		n.t.err = fmt.Errorf("the %s of a %s node is not among its descendants", name, n.Type())
	}
	return f
}

// find is the node of the id among n's descendants, looked for under
// the children whose bytes hold its (mostly a child of n; a field of a
// node tree-sitter keeps hidden can give a node further down).
func (n *node) find(id C.uintptr_t, start, end C.uint32_t) *node {
	for c := n.first(); c != nil; c = c.next() {
		if c.c.id == id {
			return c
		}
	}
	for c := n.first(); c != nil; c = c.next() {
		if c.c.start_byte <= start && end <= c.c.end_byte {
			if f := c.find(id, start, end); f != nil {
				return f
			}
		}
	}
	return nil
}

// fieldChildren are n's children under the field, in order.
func fieldChildren(n *node, field string) []*node {
	id, ok := n.t.names.fields[field]
	if !ok {
		return nil
	}
	var out []*node
	for c := n.first(); c != nil; c = c.next() {
		if c.c.field == id {
			out = append(out, c)
		}
	}
	return out
}

// namedChildren returns n's named children.
func namedChildren(n *node) []*node {
	if n.c.named_count == 0 {
		return nil
	}
	out := make([]*node, 0, n.c.named_count)
	for c := n.first(); c != nil; c = c.next() {
		if c.IsNamed() {
			out = append(out, c)
		}
	}
	return out
}
