// Package safefile writes mss's output files without ever replacing a
// file mss did not create.
//
// Every output goes through a temporary file in the same directory,
// renamed into place, so a killed run leaves the previous file or the new
// one, never half of one. Before that, the path is checked: a device, a
// named pipe, a directory or a symbolic link is never replaced (a rename
// over /dev/null would turn the device into a plain file), and an existing
// regular file must be one the command itself writes, as its check says.
package safefile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Check says whether existing, the bytes of the file at the output path,
// are an earlier output of the same kind (nil) or not (an error naming
// the line and what is wrong).
type Check func(existing []byte) error

// maxCheckBytes bounds how much of an existing file a check reads.
const maxCheckBytes = 1 << 30

// Writable returns nil when path may be written: it does not exist, or it
// is a regular file that check accepts (any regular file when check is
// nil). The error names path.
func Writable(path string, check Check) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); refusing to replace it", path, Kind(fi.Mode()))
	}
	if check == nil {
		return nil
	}
	if fi.Size() > maxCheckBytes {
		return fmt.Errorf("%s: %d bytes, more than any output this command writes; refusing to replace it", path, fi.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := check(data); err != nil {
		return fmt.Errorf("%s: %w; refusing to replace it (remove it or choose another path)", path, err)
	}
	return nil
}

// Kind names what a file of mode m is, for messages: "a symbolic link",
// "a directory", "a device", "a named pipe", "a socket".
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// Replace writes data to path through a temporary file renamed into
// place, after Writable(path, check).
func Replace(path string, data []byte, check Check) error {
	if err := Writable(path, check); err != nil {
		return err
	}
	if err := MkdirFor(path); err != nil {
		return err
	}
	name, err := WriteTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// WriteTemp writes data to a new temporary file beside path, named
// ".<name of path>.tmp*", synced and of mode 0644, and returns its name:
// the file to rename into place. On an error no file is left.
func WriteTemp(path string, data []byte) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return "", err
	}
	if err := fill(tmp, data); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}

// TempName returns a name for a temporary file beside path, of
// WriteTemp's form (".<name of path>.tmp" and 16 random hex digits),
// without making the file: a caller records the name first (in a
// manifest), so that a later run can tell the file, left by a run killed
// while writing it, for its own. WriteNew makes it.
func TempName(path string) string {
	var r [8]byte
	rand.Read(r[:]) // never fails
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp"+hex.EncodeToString(r[:]))
}

// WriteNew writes data to a new file at path, which must not exist (so
// nothing is replaced), synced and of mode 0644. On an error no file it
// made is left.
func WriteNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	return fill(f, data)
}

// fill writes data to the new file f, makes it of mode 0644, syncs and
// closes it; on an error it removes the file.
func fill(f *os.File, data []byte) error {
	fail := func(err error) error {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// JSONLines accepts an empty file, or JSON Lines whose every record is an
// object holding each of keys at its top level (e.g. "state_id" and
// "method"): the predictions, scores and track files mss writes. A file
// that only mentions a key (an items or states file holds "state_id", a
// line may quote "method" in its text) is not one of them.
func JSONLines(keys ...string) Check {
	return func(data []byte) error {
		for i, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			var rec map[string]json.RawMessage
			if line[0] != '{' || json.Unmarshal(line, &rec) != nil {
				rec = nil
			}
			for _, k := range keys {
				if _, ok := rec[k]; !ok {
					return fmt.Errorf("line %d is not a JSON record with %q, so not a file this command writes", i+1, k)
				}
			}
			if rec == nil {
				return fmt.Errorf("line %d is not a JSON record, so not a file this command writes", i+1)
			}
		}
		return nil
	}
}

// MkdirFor creates the directory an output file goes in, as "mkdir -p"
// would, so "--output out/run.jsonl" works in a fresh directory.
func MkdirFor(path string) error {
	return os.MkdirAll(filepath.Dir(path), 0o755)
}
