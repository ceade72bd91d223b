package segment

// usesCpp reports whether a file's code, outside comments, string and
// character literals, uses syntax C does not have: a scope
// ("std::string", "::f"), a namespace, a template, a class, or an access
// label (public:, private:, protected:). A ".h" file that does is parsed
// as C++ alone: the C grammar's error recovery over C++ is the slowest
// parse there is, and then loses to C++.
func usesCpp(src []byte) bool {
	n := len(src)
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	// next skips spaces and tabs from i.
	next := func(i int) int {
		for i < n && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		return i
	}
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '/' && i+1 < n && src[i+1] == '/':
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			i += 2
			for i+1 < n && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i += 2
		case c == '"' || c == '\'':
			i++
			for i < n && src[i] != c && src[i] != '\n' {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == ':' && i+2 < n && src[i+1] == ':' && (isIdent(src[i+2]) || src[i+2] == '~'):
			// A scope (std::string, ::f, A::~A), not an asm statement's
			// empty operand lists ("" ::: "memory").
			return true
		case isIdent(c):
			s := i
			for i < n && isIdent(src[i]) {
				i++
			}
			if s > 0 && isIdent(src[s-1]) {
				continue
			}
			switch string(src[s:i]) {
			case "namespace":
				if j := next(i); j < n && (src[j] == '{' || isIdent(src[j])) {
					return true
				}
			case "template":
				if j := next(i); j < n && src[j] == '<' {
					return true
				}
			case "class":
				j := next(i)
				k := j
				for k < n && isIdent(src[k]) {
					k++
				}
				if k > j {
					if k = next(k); k < n && (src[k] == '{' || src[k] == ':' && (k+1 >= n || src[k+1] != ':')) {
						return true
					}
				}
			case "public", "private", "protected":
				if j := next(i); j < n && src[j] == ':' && (j+1 >= n || src[j+1] != ':') {
					return true
				}
			}
		default:
			i++
		}
	}
	return false
}
