package controller

import (
	"slices"

	"github.com/missingcomplement/mss/tokenize"
)

// counterWords pairs the words that name the two sides of one operation:
// a name that has one changes, as a rule, with the name that has the
// other (to_json and from_json, readValue and writeValue, lock and
// unlock). Words with the prefixes un-, de- and dis- pair with the word
// itself (counterPrefixes).
var counterWords = [][2]string{
	{"to", "from"}, {"get", "set"}, {"set", "reset"}, {"encode", "decode"},
	{"encoder", "decoder"}, {"encrypt", "decrypt"}, {"serialize", "deserialize"},
	{"serializer", "deserializer"}, {"dump", "load"}, {"dumps", "loads"},
	{"save", "load"}, {"read", "write"}, {"reader", "writer"},
	{"open", "close"}, {"start", "stop"}, {"begin", "end"}, {"push", "pop"},
	{"add", "remove"}, {"insert", "delete"}, {"enable", "disable"},
	{"show", "hide"}, {"acquire", "release"}, {"input", "output"},
	{"before", "after"}, {"pre", "post"}, {"min", "max"}, {"send", "receive"},
	{"send", "recv"}, {"request", "response"}, {"increment", "decrement"},
	{"inc", "dec"}, {"create", "destroy"}, {"alloc", "free"},
	{"init", "deinit"}, {"setup", "teardown"}, {"enter", "exit"},
	{"first", "last"}, {"next", "prev"}, {"next", "previous"},
	{"upper", "lower"}, {"import", "export"}, {"in", "out"},
	{"incoming", "outgoing"}, {"inbound", "outbound"},
	{"parse", "format"}, {"parse", "stringify"},
}

// counterPrefixes undo the word they stand before (lock and unlock,
// connect and disconnect, register and deregister), when that word has
// at least the letters given: "fine" and "define", "sign" and "design"
// are no counterparts.
var counterPrefixes = []struct {
	prefix string
	min    int
}{{"un", 4}, {"dis", 4}, {"de", 5}}

var counterOf = func() map[string][]string {
	m := map[string][]string{}
	for _, p := range counterWords {
		m[p[0]] = append(m[p[0]], p[1])
		m[p[1]] = append(m[p[1]], p[0])
	}
	return m
}()

// counterpart says whether two names are the two sides of one operation:
// split into words (tokenize.Split), they differ in exactly one word, and
// those two words are counterparts. It returns the two words ("to/from"),
// or "" when the names are no counterparts.
func counterpart(a, b string) string {
	wa, wb := tokenize.Split(a), tokenize.Split(b)
	if len(wa) != len(wb) || len(wa) == 0 {
		return ""
	}
	diff := -1
	for i := range wa {
		if wa[i] != wb[i] {
			if diff >= 0 {
				return ""
			}
			diff = i
		}
	}
	if diff < 0 {
		return ""
	}
	x, y := wa[diff], wb[diff]
	if isCounter(x, y) {
		return x + "/" + y
	}
	return ""
}

// isCounter says whether two words are counterparts: a pair of
// counterWords, or a word and the word with one of counterPrefixes.
func isCounter(x, y string) bool {
	if slices.Contains(counterOf[x], y) {
		return true
	}
	for _, p := range counterPrefixes {
		if (len(x) >= p.min && y == p.prefix+x) || (len(y) >= p.min && x == p.prefix+y) {
			return true
		}
	}
	return false
}
