package isa

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tpbsim/tpbsim/isa/internal/wirespec"
)

// TestGeneratedCurrent: the files generated from the wire spec are what the spec generates now
// (run `go generate ./isa/...` after editing isa/internal/wirespec).
func TestGeneratedCurrent(t *testing.T) {
	files, err := wirespec.Files()
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			have, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(p)))
			if err != nil {
				t.Fatalf("%v (run go generate ./isa/...)", err)
			}
			if !bytes.Contains(have[:min(len(have), 200)], []byte(wirespec.Header)) {
				t.Errorf("%s does not start with the generated-code line", p)
			}
			if !bytes.Equal(have, files[p]) {
				t.Errorf("%s is not what isa/internal/wirespec generates: run go generate ./isa/...", p)
			}
		})
	}
}
