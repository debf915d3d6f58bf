// Command mkfixture writes the synthetic DVE table sets (ucode.BuildFixture) into
// testdata/ucode/dve_bin_gen{2,3,4}: `go generate ./ucode` runs it. The tests do not rewrite
// these files; they hold them to the literal values of seed 004 and FACTS §E
// (ucode/fixturefacts_test.go) and to the generator (TestFixtureFiles).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpbsim/tpbsim/ucode"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mkfixture MODULE_ROOT")
		os.Exit(2)
	}
	for _, name := range ucode.FixtureNames() {
		s, err := ucode.BuildFixture(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkfixture:", err)
			os.Exit(1)
		}
		gen, _, _ := strings.Cut(name, "/")
		files, err := ucode.WriteSetFiles(filepath.Join(os.Args[1], "testdata", "ucode", "dve_bin_"+gen), s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkfixture:", err)
			os.Exit(1)
		}
		for _, f := range files {
			fmt.Printf("wrote %s (%d B)\n", f.Path, f.Bytes)
		}
	}
}
