// Command wiregen writes the files generated from isa/internal/wirespec (run by `go generate
// ./isa/...`): isa/wire_gen.go and the gcc oracle's C header and field lists.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/tpbsim/tpbsim/isa/internal/wirespec"
)

func main() {
	root := flag.String("root", "..", "the module root (go generate runs in isa/)")
	flag.Parse()
	files, err := wirespec.Files()
	if err != nil {
		fmt.Fprintln(os.Stderr, "wiregen:", err)
		os.Exit(1)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		dst := filepath.Join(*root, filepath.FromSlash(p))
		if err := os.WriteFile(dst, files[p], 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "wiregen:", err)
			os.Exit(1)
		}
	}
}
