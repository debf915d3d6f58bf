package ucode

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/tpbsim/tpbsim/internal/atomicfile"
)

// LoadJSON reads a set's JSON form (dtable dump --json) from a file: DecodeJSON of its bytes,
// the errors naming the file.
func LoadJSON(path string) (*TableSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Offset: -1, Err: err} // the file-system error names the file
	}
	s, err := DecodeJSON(data)
	if err != nil {
		return nil, inFile(err, path, TableInvalid)
	}
	return s, nil
}

// WrittenFile is one file WriteSetFiles wrote.
type WrittenFile struct {
	Path  string
	Bytes int
}

// WriteSetFiles writes every table of s into dir as <set>_<table>.bin (the compiler's names),
// in path order. dir is made, with its missing parents, when it does not exist. The files are
// written whole or not at all (each to a temporary file beside it, then renamed); on a failure
// every folder this call made is removed again. The set name must be a file-name part (rule
// ucode.set_name).
func WriteSetFiles(dir string, s *TableSet) ([]WrittenFile, error) {
	if dir == "" {
		return nil, invalid(RuleOutputFolder, "dir", `""`, "a folder", "no output folder given")
	}
	if err := ValidSetName(s.Name); err != nil {
		return nil, err
	}
	tables, err := s.Files()
	if err != nil {
		return nil, err
	}
	var files []atomicfile.File
	for t, b := range tables {
		files = append(files, atomicfile.File{Path: filepath.Join(dir, t.FileName(s.Name)), Data: b})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	// The folders this call makes, innermost first, for removal on a failure (os.Remove: only
	// while empty, so nothing else is lost).
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	removeMade := func() {
		for _, d := range made {
			os.Remove(d)
		}
	}
	// The file-system errors name the folder or file themselves.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeMade()
		return nil, &Error{Offset: -1, Err: err}
	}
	if err := atomicfile.WriteFiles(files, atomicfile.DefaultPerm); err != nil {
		removeMade()
		return nil, &Error{Offset: -1, Err: err}
	}
	out := make([]WrittenFile, len(files))
	for i, f := range files {
		out[i] = WrittenFile{f.Path, len(f.Data)}
	}
	return out, nil
}
