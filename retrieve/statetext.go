package retrieve

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/missingcomplement/mss"
)

// StateText is the text of a state that views read: mss.State.Text less
// what an issue carries that says nothing about the code (Readable), and
// less the lines of the repository's issue template t (nil: none).
func StateText(s *mss.State, t *IssueTemplate) string {
	out, _ := readable(s.Text(), t)
	return out
}

// Left out of what the views read, because issue templates fill issues with
// it and it names packages, machines and settings rather than code:
//
//   - HTML comments: a template's instructions, which the rendered issue
//     does not show;
//   - images (`![alt](url)`, `<img ...>`) and the tags templates mark
//     text up with (`<details>`, `<summary>`, `<tt>`, `<br>`, `<kbd>`; the
//     text between them stays), whose names and addresses are not the
//     issue's words. Tags a code snippet holds (`<div v-if="x">`,
//     `List<Code>`) stay;
//   - listings of an environment: five or more lines in a row of
//     `name: value`, `NAME=value`, `name==1.2`, `name   1.2.3` or
//     `name 1.2.3` entries, at least half of them a version, an unset
//     value or an environment variable (the output of
//     `xr.show_versions()`, `pip list`, `env`). One short line between
//     two entries (a wrapped value) belongs to the listing, and counts as
//     neither; so does a block of listingJoin entries or more at most
//     listingGap blank lines above or below it, told or not (the system
//     block `xr.show_versions()` prints above its packages). So do the
//     lines just above it that head it (blank lines aside, at most
//     four): a heading, a bold or all-capital title, a
//     <details> or <summary> line, a shell prompt, a rule or a code fence
//     ("#### Output of `xr.show_versions()`", "$ pip list"); a sentence
//     above it is not a heading. Code is not a listing: an assignment
//     (`x = 1`) is no entry, and a value followed by more than a word
//     (`1.5,`) is no version.
const (
	listingMinLines = 5
	listingJoin     = 3
	listingGap      = 2
	listingMaxKey   = 40
	listingHeads    = 4
	listingMaxHead  = 100
)

var (
	commentRe = regexp.MustCompile(`(?s)<!--.*?-->`)
	imageRe   = regexp.MustCompile(`!\[[^\]\n]*\]\([^)\n]*\)`)
	// tagRe is a tag of the markup templates use, with its attributes.
	tagRe = regexp.MustCompile(`</?(?:br|hr|tt|kbd|sub|sup|details|summary|img)(?:\s[^<>\n]*)?/?>`)
	// keyValueRe is a `name: value` or `name==value` line, a list bullet
	// allowed before it.
	keyValueRe = regexp.MustCompile(`^\s*(?:[-*]\s+)?\**[A-Za-z_][\w.+ -]{0,39}?\**\s*(?::|==)\s*(.*)$`)
	// columnsRe is a `name   value` line of a listing laid out in columns.
	columnsRe = regexp.MustCompile(`^\s*[A-Za-z_][\w.+-]{0,39}\s{2,}(\S.*)$`)
	envRe     = regexp.MustCompile(`^\s*(?:export\s+)?[A-Z][A-Z0-9_]*=`)
	// nameVersionRe is a `name 1.2.3` line: a name and its version alone
	// (`conda list`, `rustc --version`, `node -v` with the tool's name).
	nameVersionRe = regexp.MustCompile(`^\s*(?:[-*]\s+)?[A-Za-z][\w.+-]{0,39}\s+v?\d+(?:\.\w+)+(?:[-+~]\S*)?\s*(?:\([^()]*\))?\s*$`)
	headRe        = regexp.MustCompile(`^\s*(?:#{1,6}\s|</?(?:details|summary)\b|\*\*[^*]+\*\*:?\s*$|\$ |` + "```" + `|-{3,}|={3,}|[A-Z][A-Z0-9 _-]{3,}$)`)
	// versionRe is a version ("0.16.0", "v2", "4.14.11-041411-generic") or
	// a number, ending the value or followed by a space or a bracket.
	versionRe = regexp.MustCompile(`^(?:v|version\s+)?(?:\d+(?:\.\w+)+(?:[-+~]\S*)?|\d+)(?:[\s|(\[]|$)`)
	unsetRe   = regexp.MustCompile(`(?i)^(?:none|null|nil|unknown|unset|n/a|<not set>|not installed)(?:\s|$)`)
)

// Readable is text less its HTML comments, environment listings and
// markup (see above); what is left keeps its line order.
func Readable(text string) string {
	out, _ := readable(text, nil)
	return out
}

// readable is Readable less the lines of the issue template t (nil:
// none), and what it left out.
func readable(text string, t *IssueTemplate) (string, []string) {
	var left []string
	if strings.Contains(text, "<!--") {
		comments, n := 0, 0
		text = commentRe.ReplaceAllStringFunc(text, func(c string) string {
			comments, n = comments+1, n+strings.Count(c, "\n")+1
			return ""
		})
		switch {
		case comments == 1:
			left = append(left, "an HTML comment of "+nLines(n))
		case comments > 1:
			left = append(left, fmt.Sprintf("%d HTML comments of %s", comments, nLines(n)))
		}
	}
	lines := strings.Split(text, "\n")
	if t.Len() > 0 {
		lines = withoutTemplate(lines, t, &left)
		text = strings.Join(lines, "\n")
	}
	kind := make([]int8, len(lines)) // 0 not a listing entry, 1 an entry, 2 a telling one
	found := false
	for i, l := range lines {
		kind[i] = listingEntry(strings.TrimRight(l, "\r"))
		found = found || kind[i] == 2
	}
	if !found {
		return unmarked(text, left)
	}
	drop := make([]bool, len(lines))
	// run gives where the run of entries from line i on (step 1) or back
	// (step -1) ends, the first line past it, and how many entries and
	// telling ones it holds. One short other line between two entries is
	// part of it; a line dropped already ends it.
	run := func(i, step int) (j, entries, telling int) {
		for j = i; j >= 0 && j < len(lines) && !drop[j]; {
			if kind[j] > 0 {
				entries++
				if kind[j] == 2 {
					telling++
				}
				j += step
				continue
			}
			t := strings.TrimSpace(lines[j])
			if next := j + step; t != "" && len(t) <= listingMaxKey && j != i && next >= 0 && next < len(lines) && kind[next] > 0 {
				j = next
				continue
			}
			break
		}
		return j, entries, telling
	}
	// blanks gives the first line from i on (step 1) or back (step -1)
	// past at most listingGap blank lines.
	blanks := func(i, step int) int {
		for n := 0; n < listingGap && i >= 0 && i < len(lines) && strings.TrimSpace(lines[i]) == ""; n++ {
			i += step
		}
		return i
	}
	for i := 0; i < len(lines); {
		if kind[i] == 0 {
			i++
			continue
		}
		j, entries, telling := run(i, 1)
		if entries >= listingMinLines && 2*telling >= entries {
			// Blocks of entries a blank line apart are one listing
			// (`xr.show_versions()` prints the system, then the
			// packages).
			from := i
			for {
				k := blanks(from-1, -1)
				if k == from-1 || k < 0 || kind[k] == 0 || drop[k] {
					break
				}
				before, n, _ := run(k, -1)
				if n < listingJoin {
					break
				}
				from = before + 1
			}
			for {
				k := blanks(j, 1)
				if k == j || k >= len(lines) || kind[k] == 0 {
					break
				}
				end, n, _ := run(k, 1)
				if n < listingJoin {
					break
				}
				j = end
			}
			for k, heads := from-1, 0; k >= 0 && heads < listingHeads && !drop[k]; k-- {
				t := strings.TrimSpace(lines[k])
				if t == "" {
					continue
				}
				if len(t) > listingMaxHead || !headRe.MatchString(t) {
					break
				}
				from, heads = k, heads+1
			}
			for k := from; k < j; k++ {
				drop[k] = true
			}
			left = append(left, "an environment listing of "+nLines(j-from))
		}
		i = j
	}
	var b strings.Builder
	b.Grow(len(text))
	first := true
	for i, l := range lines {
		if drop[i] {
			continue
		}
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(l)
	}
	return unmarked(b.String(), left)
}

// unmarked is text less its images and markup tags, and left with a line
// saying how many there were. It runs after the listings are found, whose
// headings are often in tags.
func unmarked(text string, left []string) (string, []string) {
	if !strings.Contains(text, "<") && !strings.Contains(text, "![") {
		return text, left
	}
	marks := 0
	text = imageRe.ReplaceAllStringFunc(text, func(string) string { marks++; return "" })
	text = tagRe.ReplaceAllStringFunc(text, func(string) string { marks++; return "" })
	switch {
	case marks == 1:
		left = append(left, "an image or HTML tag")
	case marks > 1:
		left = append(left, fmt.Sprintf("%d images and HTML tags", marks))
	}
	return text, left
}

// withoutTemplate is lines less those of the issue template t, noting
// how many it left out in left.
func withoutTemplate(lines []string, t *IssueTemplate, left *[]string) []string {
	out := lines[:0:0]
	n := 0
	for _, l := range lines {
		if t.has(strings.TrimRight(l, "\r")) {
			n++
			continue
		}
		out = append(out, l)
	}
	if n > 0 {
		*left = append(*left, nLines(n)+" of the repository's issue template")
	}
	return out
}

// nLines is "1 line" or "n lines".
func nLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// listingEntry tells whether a line is an entry of a listing: 2 when it
// tells (a version, an unset value, an environment variable), 1 when it
// only has the shape, 0 when it is not one.
func listingEntry(l string) int8 {
	if strings.TrimSpace(l) == "" {
		return 0
	}
	if envRe.MatchString(l) || nameVersionRe.MatchString(l) {
		return 2
	}
	m := keyValueRe.FindStringSubmatch(l)
	if m == nil {
		m = columnsRe.FindStringSubmatch(l)
	}
	if m == nil {
		return 0
	}
	v := strings.TrimSpace(m[1])
	if versionRe.MatchString(v) || unsetRe.MatchString(v) {
		return 2
	}
	return 1
}
