// Command gen writes the generated kernels of package dve (go generate ./dve/).
package main

import (
	"fmt"
	"os"

	"github.com/tpbsim/tpbsim/dve/internal/kernelgen"
)

func main() {
	files, err := kernelgen.Files()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for name, src := range files {
		if err := os.WriteFile(name, src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
