package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// docLinkRe finds a Markdown link's target: [text](target).
var docLinkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// docHeadingRe finds a Markdown heading outside code.
var docHeadingRe = regexp.MustCompile(`^#{1,6}\s+(.*)$`)

// docAnchor is the anchor a heading gets where the pages are read
// (GitHub's rule): lower case, punctuation other than hyphens and
// underscores dropped, spaces made hyphens.
func docAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docAnchors lists the anchors of a page's headings (a repeated heading's
// later anchors numbered -1, -2, ... as GitHub numbers them), skipping
// fenced code.
func docAnchors(lines []string) map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
	fenced := false
	for _, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		m := docHeadingRe.FindStringSubmatch(l)
		if fenced || m == nil {
			continue
		}
		a := docAnchor(m[1])
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// docLinkProblems checks every relative link of the pages (path to page
// lines): the file it names exists, and the heading its anchor names is
// on that page. It returns one "page:line: ..." per broken link.
func docLinkProblems(pages map[string][]string, exists func(string) bool) []string {
	anchors := map[string]map[string]bool{}
	for p, lines := range pages {
		anchors[p] = docAnchors(lines)
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(pages)) {
		for i, l := range pages[p] {
			for _, m := range docLinkRe.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := p
				if path != "" {
					file = filepath.Join(filepath.Dir(p), filepath.FromSlash(path))
				}
				if !exists(file) {
					out = append(out, fmt.Sprintf("%s:%d: %s: no such file", p, i+1, target))
					continue
				}
				if anchor == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				a, ok := anchors[file]
				if !ok {
					continue // a page outside README.md and docs/
				}
				if !a[anchor] {
					out = append(out, fmt.Sprintf("%s:%d: %s: no heading with that anchor", p, i+1, target))
				}
			}
		}
	}
	return out
}

// TestDocLinks: every relative link of README.md and docs/*.md names a
// file that exists and, with an anchor, a heading of that page.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "README.md"))
	pages := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Clean(f)] = strings.Split(string(data), "\n")
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	for _, p := range docLinkProblems(pages, exists) {
		t.Error(p)
	}
}

// TestDocLinkProblems: the checker finds a missing file, a missing
// anchor and a numbered repeat, and passes good links.
func TestDocLinkProblems(t *testing.T) {
	pages := map[string][]string{
		filepath.Join("d", "a.md"): {"# A page", "## `mss bench` — tune, again!", "## Twice", "## Twice",
			"[ok](#mss-bench--tune-again) [ok](b.md#b-page) [ok](#twice-1) [ok](https://x.org/#nothing)",
			"[bad](#twice-2) [bad](c.md) [bad](b.md#nothing)", "```", "## Not a heading", "```", "[bad](#not-a-heading)"},
		filepath.Join("d", "b.md"): {"# B page"},
	}
	exists := func(p string) bool { _, ok := pages[p]; return ok }
	got := docLinkProblems(pages, exists)
	want := []string{
		filepath.Join("d", "a.md") + ":6: #twice-2: no heading with that anchor",
		filepath.Join("d", "a.md") + ":6: c.md: no such file",
		filepath.Join("d", "a.md") + ":6: b.md#nothing: no heading with that anchor",
		filepath.Join("d", "a.md") + ":10: #not-a-heading: no heading with that anchor",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
