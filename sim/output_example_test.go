package sim_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// The outputs of `tpbsim run PROG --dump ... --trace FILE --summary -` as library calls: checked
// before the run, rendered after it, written whole or not at all (the summary to stdout last).
func ExampleOutputArgs_Parse() {
	dir, _ := os.MkdirTemp("", "outputs")
	defer os.RemoveAll(dir)
	src := ".engine DVE\nSTREAM_TRANSPOSE in=FP32 out=FP32 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]\n"
	f, err := asm.Load("t.s", []byte(src), isa.CAYMAN, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	prog, err := sim.FileProgram(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := sim.New(sim.Config{Gen: isa.CAYMAN, Trace: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	outs, err := sim.OutputArgs{Dumps: []string{"sbuf:0:0x100=32x32:bf16:" + filepath.Join(dir, "t.npy")},
		Trace: filepath.Join(dir, "trace.json"), Summary: "-", Input: "t.s"}.Parse(m, isa.CAYMAN)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Run(prog)
	if err != nil {
		fmt.Println(err)
		return
	}
	files, notes, err := outs.RunFiles(m, res, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range files {
		fmt.Println(strings.Replace(o.Flag, dir+string(filepath.Separator), "", 1), filepath.Base(o.Path), len(o.Data) > 0)
	}
	fmt.Println(notes[0][len(dir)+1:])
	if err := outs.Write(files, io.Discard); err != nil { // the summary "to stdout", here discarded
		fmt.Println(err)
	}
	_, err = os.Stat(filepath.Join(dir, "trace.json"))
	fmt.Println(err == nil, outs.ToStdout())

	_, err = sim.OutputArgs{Trace: "-", Summary: "-"}.Parse(m, isa.CAYMAN)
	fmt.Println(err)
	// Output:
	// --dump sbuf:0:0x100=32x32:bf16:t.npy t.npy true
	// --trace trace.json true
	// --summary - true
	// t.npy holds BFLOAT16 as raw uint16 bits (numpy has no BFLOAT16)
	// true true
	// --summary -: standard output already carries another output given as - (only one output may go there)
}
