package retrieve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/missingcomplement/mss/internal/jsonkey"
)

// OrderFormat names the JSON form of an order model (MarshalOrder): what
// `mss bench tune --fit-order --order-out FILE` writes and `--order FILE`
// reads.
const OrderFormat = "mss-order-1"

// orderFile is the JSON form of an OrderModel. It names the features the
// weights are of, so that a model fitted on other features is refused
// rather than misread.
type orderFile struct {
	Format   string      `json:"format"`
	Features []string    `json:"features"`
	Bias     float64     `json:"bias"`
	Weights  []float64   `json:"weights"`
	Trees    []OrderTree `json:"trees,omitempty"`
}

// orderFileIn is orderFile as read: a number left out or null is nil, so
// that it is refused by name rather than read as 0.
type orderFileIn struct {
	Format   string       `json:"format"`
	Features []string     `json:"features"`
	Bias     *float64     `json:"bias"`
	Weights  []*float64   `json:"weights"`
	Trees    []*orderTree `json:"trees,omitempty"`
}

type orderTree struct {
	Nodes []*orderNode `json:"nodes"`
}

type orderNode struct {
	Feature   *int     `json:"feature"`
	Threshold *float64 `json:"threshold"`
	Left      *int     `json:"left"`
	Right     *int     `json:"right"`
	Value     *float64 `json:"value"`
}

// maxOrderNumber bounds the magnitude of an order model's bias, weights
// and leaf values: a fitted model's are below 10, and any below this
// keeps every score finite, where 1e308 and -1e308 would add to NaN.
const maxOrderNumber = 1e6

// orderNumber is *v, or an error naming the field at when v is missing
// or its magnitude is past bound.
func orderNumber(at string, v *float64, bound float64) (float64, error) {
	switch {
	case v == nil:
		return 0, fmt.Errorf("%s: missing or null; want a number", at)
	case math.Abs(*v) > bound:
		return 0, fmt.Errorf("%s: %g, want a magnitude of at most %g", at, *v, bound)
	}
	return *v, nil
}

// MarshalOrder gives m in its JSON form, indented, ending in a newline.
func (m *OrderModel) MarshalOrder() ([]byte, error) {
	if len(m.Weights) != len(OrderFeatures) {
		return nil, fmt.Errorf("order model: %d weights, want one per feature (%d)", len(m.Weights), len(OrderFeatures))
	}
	f := orderFile{Format: OrderFormat, Features: OrderFeatures, Bias: m.Bias, Weights: m.Weights, Trees: m.Trees}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// orderKeys are the keys of an order model's JSON form, at every depth.
var orderKeys = slices.Concat(jsonkey.Names(orderFile{}), jsonkey.Names(OrderTree{}), jsonkey.Names(OrderNode{}))

// ParseOrderModel reads an order model in its JSON form (MarshalOrder).
// An error names the line or the field at fault: a syntax error, a field
// the form does not have (or has only in another case), a key given twice,
// another format, features other than the ones this build reads
// (OrderFeatures, in order), a weight missing or too many, a number
// missing or null (never read as 0), a bias, weight or leaf value of a
// magnitude past 1e6 (scores past it can add to NaN), or a tree whose
// nodes do not make a tree.
func ParseOrderModel(data []byte) (*OrderModel, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f orderFileIn
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("line %d: more after the model's object", lineAt(data, dec.InputOffset()))
	}
	if field, at, found := jsonkey.Repeated(data); found {
		return nil, fmt.Errorf("line %d: %q given twice; each key is named once", lineAt(data, at), field)
	}
	if key, name, at, found := jsonkey.Folded(data, orderKeys); found {
		return nil, fmt.Errorf("line %d: unknown field %q (keys are case-sensitive; did you mean %q?)", lineAt(data, int64(at)), key, name)
	}
	if f.Format != OrderFormat {
		return nil, fmt.Errorf(`"format": %q, want %q`, f.Format, OrderFormat)
	}
	if len(f.Features) != len(OrderFeatures) {
		return nil, fmt.Errorf(`"features": %d names, want the %d this build reads (%s … %s): the model was fitted on other features`,
			len(f.Features), len(OrderFeatures), OrderFeatures[0], OrderFeatures[len(OrderFeatures)-1])
	}
	for i, name := range f.Features {
		if name != OrderFeatures[i] {
			return nil, fmt.Errorf(`"features"[%d]: %q, want %q: the model was fitted on other features than this build reads`, i, name, OrderFeatures[i])
		}
	}
	if len(f.Weights) != len(OrderFeatures) {
		return nil, fmt.Errorf(`"weights": %d values, want one per feature (%d)`, len(f.Weights), len(OrderFeatures))
	}
	m := &OrderModel{Weights: make([]float64, len(f.Weights))}
	var err error
	if m.Bias, err = orderNumber(`"bias"`, f.Bias, maxOrderNumber); err != nil {
		return nil, err
	}
	for i, w := range f.Weights {
		if m.Weights[i], err = orderNumber(fmt.Sprintf(`"weights"[%d]`, i), w, maxOrderNumber); err != nil {
			return nil, err
		}
	}
	for i, in := range f.Trees {
		t, err := readTree(in)
		if err == nil {
			err = checkTree(t)
		}
		if err != nil {
			return nil, fmt.Errorf(`"trees"[%d]%w`, i, err)
		}
		m.Trees = append(m.Trees, t)
	}
	return m, nil
}

// readTree is the tree in, every field of every node given.
func readTree(in *orderTree) (OrderTree, error) {
	if in == nil {
		return OrderTree{}, errors.New(": null; want a tree's object")
	}
	t := OrderTree{Nodes: make([]OrderNode, len(in.Nodes))}
	for k, nd := range in.Nodes {
		at := fmt.Sprintf(`."nodes"[%d]`, k)
		if nd == nil {
			return OrderTree{}, fmt.Errorf("%s: null; want a node's object", at)
		}
		for _, c := range []struct {
			name string
			v    *int
			to   *int
		}{{"feature", nd.Feature, &t.Nodes[k].Feature}, {"left", nd.Left, &t.Nodes[k].Left}, {"right", nd.Right, &t.Nodes[k].Right}} {
			if c.v == nil {
				return OrderTree{}, fmt.Errorf("%s.%q: missing or null; want a number", at, c.name)
			}
			*c.to = *c.v
		}
		var err error
		if t.Nodes[k].Threshold, err = orderNumber(at+`."threshold"`, nd.Threshold, math.MaxFloat64); err != nil {
			return OrderTree{}, err
		}
		if t.Nodes[k].Value, err = orderNumber(at+`."value"`, nd.Value, maxOrderNumber); err != nil {
			return OrderTree{}, err
		}
	}
	return t, nil
}

// checkTree says whether t's nodes make a tree: every inner node's
// feature is one the model reads and its two children are distinct later
// nodes, reached from no other node, and every node but the root is
// reached.
func checkTree(t OrderTree) error {
	n := len(t.Nodes)
	if n == 0 {
		return errors.New(`."nodes": none; want one at least`)
	}
	parent := make([]int, n)
	for k := range parent {
		parent[k] = -1
	}
	for k, nd := range t.Nodes {
		at := fmt.Sprintf(`."nodes"[%d]`, k)
		if nd.Left < 0 || nd.Right < 0 {
			if nd.Left != -1 || nd.Right != -1 {
				return fmt.Errorf(`%s: "left" %d and "right" %d; a leaf has both -1`, at, nd.Left, nd.Right)
			}
			continue
		}
		if nd.Feature < 0 || nd.Feature >= len(OrderFeatures) {
			return fmt.Errorf(`%s."feature": %d, want 0 to %d`, at, nd.Feature, len(OrderFeatures)-1)
		}
		for _, c := range []struct {
			name string
			i    int
		}{{"left", nd.Left}, {"right", nd.Right}} {
			if c.i <= k || c.i >= n {
				return fmt.Errorf(`%s.%q: %d, want a later node of the tree (%d to %d)`, at, c.name, c.i, k+1, n-1)
			}
			if parent[c.i] >= 0 {
				return fmt.Errorf(`%s.%q: node %d is a child of node %d already`, at, c.name, c.i, parent[c.i])
			}
			parent[c.i] = k
		}
	}
	for k := 1; k < n; k++ {
		if parent[k] < 0 {
			return fmt.Errorf(`."nodes"[%d]: no node leads to it`, k)
		}
	}
	return nil
}

// jsonError names the line of a JSON decoding error where it has an
// offset.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("line %d: %v", lineAt(data, syn.Offset), err)
	case errors.As(err, &typ):
		return fmt.Errorf("line %d: %q: %s where a %s goes", lineAt(data, typ.Offset), typ.Field, typ.Value, typ.Type)
	case errors.Is(err, io.EOF):
		return errors.New("empty: want an order model's JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("line %d: the text ends inside the model's object", lineAt(data, int64(len(data))))
	}
	// DisallowUnknownFields: json: unknown field "foo", placed by the key.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if key, err := strconv.Unquote(name); err == nil {
			if at := keyOffset(data, key); at >= 0 {
				return fmt.Errorf("line %d: unknown field %q", lineAt(data, int64(at)), key)
			}
			return fmt.Errorf("unknown field %q", key)
		}
	}
	return err
}

// keyOffset is where the first object key spelled key starts in data (a
// string followed by a colon), or -1.
func keyOffset(data []byte, key string) int {
	quoted, _ := json.Marshal(key)
	for off := 0; ; {
		k := bytes.Index(data[off:], quoted)
		if k < 0 {
			return -1
		}
		at := off + k
		rest := bytes.TrimLeft(data[at+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return at
		}
		off = at + 1
	}
}

// lineAt is the line (from 1) of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
