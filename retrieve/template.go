package retrieve

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// An issue template is text the repository asks every reporter to keep:
// its headings and prompts ("#### Output of `xr.show_versions()`",
// "What version of `bat` are you using?") come back in issue after
// issue, and the code they name (show_versions, bat) is the template's,
// not the issue's. The views do not read a line of the state's text that
// is a line of one of the repository's issue templates (IssueTemplate):
// it would rank the code the template names first on every issue.
//
// The templates are those GitHub and GitLab offer a reporter:
// .github/ISSUE_TEMPLATE/*.md, *.yml and *.yaml (issue forms),
// ISSUE_TEMPLATE.md at the root, in .github/ or in docs/ (any case), and
// .gitlab/issue_templates/*.md. Of a Markdown template every line below
// its front matter counts; of an issue form, what a filed issue shows of
// it: each field's label (a heading of the issue) and its default value.
// Lines are compared as normalizeTemplateLine leaves them; a line with
// fewer than minTemplateLetters letters (a rule, a bullet, a code fence)
// says nothing and is never dropped.
const (
	minTemplateLetters = 4
	// MaxIssueTemplateBytes bounds a template file read; a larger one is
	// no template a reporter fills in.
	MaxIssueTemplateBytes = 256 << 10
	// MaxIssueTemplateFiles bounds how many template files are read.
	MaxIssueTemplateFiles = 64
)

// IssueTemplatePatterns are SQL LIKE patterns (case-insensitive) that
// every issue template's path matches; IsIssueTemplate decides.
var IssueTemplatePatterns = []string{"%issue_template%"}

var (
	issueTemplateRe = regexp.MustCompile(`(?i)^(?:(?:\.github/|docs/)?issue_template\.md|\.github/issue_template/[^/]+\.(?:md|ya?ml)|\.gitlab/issue_templates/[^/]+\.md)$`)
	// formKeyRe is a key of an issue form, a list dash allowed before
	// it: group 1 is what precedes the key, 2 the key, 3 its value.
	formKeyRe  = regexp.MustCompile(`^(\s*(?:-\s+)?)([A-Za-z_][\w-]*):\s*(.*)$`)
	headMarkRe = regexp.MustCompile(`^(?:#{1,6}|>+|[-*+]\s|\d+[.)]\s)\s*`)
)

// IsIssueTemplate reports whether a repository path is an issue template.
func IsIssueTemplate(p string) bool {
	return issueTemplateRe.MatchString(p)
}

// IssueTemplate is the set of lines of a repository's issue templates.
// The zero value and nil hold none.
type IssueTemplate struct {
	lines map[string]bool
}

// NewIssueTemplate is the template of the given lines (as Lines returns
// them: normalized).
func NewIssueTemplate(lines []string) *IssueTemplate {
	t := &IssueTemplate{}
	t.addLines(lines)
	return t
}

// Add reads one template file (IsIssueTemplate(path) must hold).
func (t *IssueTemplate) Add(p string, data []byte) {
	switch strings.ToLower(path.Ext(p)) {
	case ".yml", ".yaml":
		t.addLines(formLines(string(data)))
	default:
		t.addLines(markdownLines(string(data)))
	}
}

// addLines keeps the telling ones of lines, normalized.
func (t *IssueTemplate) addLines(lines []string) {
	if t.lines == nil {
		t.lines = map[string]bool{}
	}
	for _, l := range lines {
		if l = normalizeTemplateLine(l); telling(l) {
			t.lines[l] = true
		}
	}
}

// Len is the number of distinct lines.
func (t *IssueTemplate) Len() int {
	if t == nil {
		return 0
	}
	return len(t.lines)
}

// Lines are the template's lines, normalized and sorted.
func (t *IssueTemplate) Lines() []string {
	if t == nil {
		return nil
	}
	out := make([]string, 0, len(t.lines))
	for l := range t.lines {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// Within is the template of those of t's lines that text holds: what
// reading text with t leaves out of it, and all a reader of text alone
// needs of t.
func (t *IssueTemplate) Within(text string) *IssueTemplate {
	out := &IssueTemplate{lines: map[string]bool{}}
	if t.Len() == 0 {
		return out
	}
	for _, l := range strings.Split(text, "\n") {
		if n := normalizeTemplateLine(l); t.lines[n] {
			out.lines[n] = true
		}
	}
	return out
}

// has reports whether a line of text is one of the template's (which
// holds telling lines alone).
func (t *IssueTemplate) has(line string) bool {
	return t.Len() > 0 && t.lines[normalizeTemplateLine(line)]
}

// markdownLines are a Markdown template's lines below its front matter.
func markdownLines(text string) []string {
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				return lines[i+1:]
			}
		}
	}
	return lines
}

// formLines are what a filed issue shows of an issue form: the labels of
// its fields and their default values (a `value:` scalar or block). The
// form is read line by line, as its few keys need; a key this does not
// know is passed over with the block under it.
func formLines(text string) []string {
	var out []string
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		m := formKeyRe.FindStringSubmatch(lines[i])
		if m == nil || (m[2] != "label" && m[2] != "value") {
			continue
		}
		v := strings.TrimSpace(m[3])
		if v != "" && v[0] != '|' && v[0] != '>' {
			out = append(out, unquote(v))
			continue
		}
		// A block scalar: the lines indented deeper than its key.
		indent := len(m[1])
		for i+1 < len(lines) {
			next := lines[i+1]
			if strings.TrimSpace(next) != "" && len(next)-len(strings.TrimLeft(next, " \t")) <= indent {
				break
			}
			i++
			out = append(out, next)
		}
	}
	return out
}

// unquote strips a YAML scalar's quotes.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// normalizeTemplateLine is a line as templates and issues are compared:
// without its heading, quote or list marks, emphasis around it, and runs
// of spaces.
func normalizeTemplateLine(l string) string {
	l = strings.TrimSpace(l)
	l = strings.TrimSpace(headMarkRe.ReplaceAllString(l, ""))
	l = strings.Trim(l, "*_ \t")
	return strings.Join(strings.Fields(l), " ")
}

// telling reports whether a normalized line is one a template can be
// told by: not a code fence, and holding minTemplateLetters letters.
func telling(l string) bool {
	if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
		return false
	}
	n := 0
	for _, r := range l {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f {
			if n++; n >= minTemplateLetters {
				return true
			}
		}
	}
	return false
}
