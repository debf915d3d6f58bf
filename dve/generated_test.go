package dve

import (
	"bytes"
	"os"
	"testing"

	"github.com/tpbsim/tpbsim/dve/internal/kernelgen"
)

// The generated kernels are what internal/kernelgen writes now (go generate ./dve/).
func TestGeneratedCurrent(t *testing.T) {
	files, err := kernelgen.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scan_gen.go", "transpose_gen.go"} {
		t.Run(name, func(t *testing.T) {
			want, ok := files[name]
			if !ok {
				t.Fatalf("kernelgen writes no %s", name)
			}
			have, err := os.ReadFile(name)
			if err != nil {
				t.Fatalf("%v (run go generate ./dve/)", err)
			}
			if !bytes.HasPrefix(have, []byte(kernelgen.Header)) {
				t.Errorf("%s does not start with the generated-code line", name)
			}
			if !bytes.Equal(have, want) {
				t.Errorf("%s is not what internal/kernelgen generates: run go generate ./dve/", name)
			}
		})
	}
	if len(files) != 2 {
		t.Errorf("kernelgen writes %d files, the test knows 2", len(files))
	}
}
