package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpbsim/tpbsim/internal/atomicfile"
	"github.com/tpbsim/tpbsim/isa"
)

// Export writes the demo as the files tpbsim run takes (Files) into dir, made if missing, all
// whole or none of them, and returns their paths in Files' order (the program first).
func Export(g isa.Generation, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, err := Files(g)
	if err != nil {
		return nil, err
	}
	out := make([]atomicfile.File, len(files))
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f.Name)
		out[i] = atomicfile.File{Path: paths[i], Data: f.Data}
	}
	if err := atomicfile.WriteFiles(out, atomicfile.DefaultPerm); err != nil {
		return nil, err
	}
	return paths, nil
}

// RunCommand is the tpbsim run command line (over several lines, each indented) that runs the
// exported demo in dir on its data, checking both results against the references and dumping
// the transposed tile as float32 with a trace.
func RunCommand(dir string) string {
	j := func(name string) string { return filepath.Join(dir, name) }
	var b strings.Builder
	fmt.Fprintf(&b, "  tpbsim run %s --check-uninit \\\n", j("demo.tpb"))
	fmt.Fprintf(&b, "    --load hbm:0x%x=%s \\\n", HBMX, j("x.npy"))
	fmt.Fprintf(&b, "    --load sbuf:0:0x%x=%s --load sbuf:0:0x%x=%s --load sbuf:0:0x%x=%s \\\n",
		OffTag, j("tags.npy"), OffS, j("sentinel.npy"), OffTagS, j("ones.npy"))
	fmt.Fprintf(&b, "    --expect sbuf:0:0x%x=64x64:bf16:%s --expect sbuf:0:0x%x=64x2:fp32:%s \\\n",
		OffT, j("expect_transposed.npy"), OffR, j("expect_reduced.npy"))
	fmt.Fprintf(&b, "    --dump sbuf:0:0x%x=64x64:bf16:%s:float32 --trace %s\n", OffT, j("transposed.npy"), j("trace.json"))
	return b.String()
}
