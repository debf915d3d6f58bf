// Package nkipy carries tpbsim's Python NKI front end (the packages tpbsim_nki, nki and
// neuronxcc) inside the Go binary, so that a `go install`ed tpbsim runs NKI kernel files with no
// repository: Install writes the sources once into a content-addressed folder and returns the
// folder to put on PYTHONPATH.
package nkipy

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// sources are the front end's Python files. Explicit patterns (not directories) so that
// __init__.py is included and no __pycache__ left by a test run in the repository is.
//
//go:embed README.md tpbsim_nki/*.py nki/*.py neuronxcc/*.py neuronxcc/nki/*.py neuronxcc/nki/isa/*.py
var sources embed.FS

// Files returns the embedded Python sources (paths relative to the PYTHONPATH folder).
func Files() fs.FS { return sources }

// Hash is the hex SHA-256 over the embedded files' paths and contents, in path order: the
// name of the folder Install writes.
func Hash() string {
	h, _ := hashFiles()
	return h
}

func fileList() ([]string, error) {
	var paths []string
	err := fs.WalkDir(sources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}

func hashFiles() (string, error) {
	paths, err := fileList()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, p := range paths {
		b, err := sources.ReadFile(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// completeMarker is written last into an installed folder; a folder without it is not used.
const completeMarker = ".complete"

// Install writes the Python sources under dir (when dir is "", os.UserCacheDir()/tpbsim, or
// os.TempDir()/tpbsim when there is no cache directory) into the folder python-<hash>, unless a
// complete copy is already there, and returns that folder: the PYTHONPATH entry that makes
// `import nki`, `import neuronxcc.nki` and `import tpbsim_nki` resolve to this front end.
// The folder is written beside its final name and renamed into place, so a concurrent or
// interrupted Install never leaves a partial folder in use.
func Install(dir string) (pythonPath string, err error) {
	if dir == "" {
		base, cerr := os.UserCacheDir()
		if cerr != nil {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "tpbsim")
	}
	sum, err := hashFiles()
	if err != nil {
		return "", fmt.Errorf("nkipy: reading the embedded sources: %w", err)
	}
	final := filepath.Join(dir, "python-"+sum[:16])
	if _, err := os.Stat(filepath.Join(final, completeMarker)); err == nil {
		return final, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("nkipy: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".python-"+sum[:16]+"-")
	if err != nil {
		return "", fmt.Errorf("nkipy: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := writeTree(tmp); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, completeMarker), []byte(sum+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("nkipy: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another Install may have won the race; its folder is as good as ours.
		if _, serr := os.Stat(filepath.Join(final, completeMarker)); serr == nil {
			return final, nil
		}
		// A stale incomplete folder (an older tpbsim killed mid-write cannot leave one, but a
		// hand-made one can): replace it.
		if rerr := os.RemoveAll(final); rerr != nil {
			return "", fmt.Errorf("nkipy: %w", errors.Join(err, rerr))
		}
		if err := os.Rename(tmp, final); err != nil {
			return "", fmt.Errorf("nkipy: %w", err)
		}
	}
	return final, nil
}

func writeTree(root string) error {
	paths, err := fileList()
	if err != nil {
		return fmt.Errorf("nkipy: %w", err)
	}
	for _, p := range paths {
		b, err := sources.ReadFile(p)
		if err != nil {
			return fmt.Errorf("nkipy: %w", err)
		}
		dst := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("nkipy: %w", err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return fmt.Errorf("nkipy: %w", err)
		}
	}
	return nil
}
