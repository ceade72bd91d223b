package repobench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/missingcomplement/mss/index"
)

// ErrNoMirror is returned (wrapped) when no git directory of a repository
// is found under the mirror root.
var ErrNoMirror = errors.New("no git directory for repository")

// FindGitDir locates the git directory of repo ("owner/name") under root.
// Two layouts are accepted, names compared case-insensitively:
// root/<owner>+<name>/repo (what the fetch tool writes) and
// root/<owner>+<name>.git (a bare clone).
func FindGitDir(root, repo string) (string, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("repository %q: want owner/name", repo)
	}
	base := owner + "+" + name
	looked := []string{
		filepath.Join(root, base, "repo"),
		filepath.Join(root, base+".git"),
	}
	for _, d := range looked {
		if index.IsGitDir(d) {
			return d, nil
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", fmt.Errorf("repository %s: %w: reading mirror root: %v", repo, ErrNoMirror, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names) // deterministic when two spellings exist
	for _, n := range names {
		var d string
		switch strings.ToLower(n) {
		case strings.ToLower(base):
			d = filepath.Join(root, n, "repo")
		case strings.ToLower(base + ".git"):
			d = filepath.Join(root, n)
		default:
			continue
		}
		if index.IsGitDir(d) {
			return d, nil
		}
		looked = append(looked, d)
	}
	return "", fmt.Errorf("repository %s: %w: looked in %s (names matched case-insensitively)",
		repo, ErrNoMirror, strings.Join(looked, ", "))
}
