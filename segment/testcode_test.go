package segment

import (
	"testing"
)

func TestTestCode(t *testing.T) {
	src := `pub fn parse(s: &str) -> u32 {
    s.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> &'static str {
        "abc"
    }

    /// Parses the helper's text.
    #[test]
    fn parses() {
        assert_eq!(parse(helper()), 3);
    }

    #[tokio::test]
    #[ignore]
    async fn parses_later() {
        assert_eq!(parse("ab"), 2);
    }
}
`
	got := map[string]bool{}
	for _, u := range File("src/lib.rs", []byte(src)) {
		got[u.Symbol+"@"+u.Kind] = TestCode(u.Content, u.Language)
	}
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"parse@function", false},
		{"helper@function", false}, // nothing but its module says so
		{"parses@function", true},
		{"parses_later@function", true},
	} {
		v, ok := got[tt.key]
		if !ok {
			t.Fatalf("no unit %s among %v", tt.key, got)
		}
		if v != tt.want {
			t.Errorf("TestCode(%s) = %v, want %v", tt.key, v, tt.want)
		}
	}
	for _, tt := range []struct {
		text, lang string
		want       bool
	}{
		{"#[cfg(test)]\nmod tests {\n    use super::*;\n", "rust", true},
		{"#[cfg(all(test, feature = \"std\"))]\nmod tests {\n", "rust", true},
		{"/* a\n   b */\n#[crate::test]\nasync fn routes() {}\n", "rust", true},
		{"#[derive(Debug)]\nstruct Test;\n", "rust", false},
		{"#[cfg(feature = \"test-util\")]\npub fn pause() {}\n", "rust", false},
		{"fn run() {\n    #[cfg(test)]\n    check();\n}\n", "rust", false},
		{"#[test]\nfn t() {}\n", "python", false},
		{"@Test\nvoid parses() {}\n", "java", false},
	} {
		if got := TestCode(tt.text, tt.lang); got != tt.want {
			t.Errorf("TestCode(%q, %s) = %v, want %v", tt.text, tt.lang, got, tt.want)
		}
	}
}
