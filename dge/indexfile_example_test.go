package dge_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
)

// An index request as `tpbsim dge plan --indirect IDX.npy` takes it: the spec reads the index
// file and checks the registers with the rules of the other request form.
func ExampleIndexRequestSpec_Request() {
	dir, _ := os.MkdirTemp("", "idx")
	defer os.RemoveAll(dir)
	var b bytes.Buffer
	npy.Write(&b, &npy.Array{Dtype: "u4", Shape: []int{3}, Data: []byte{3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0}})
	file := filepath.Join(dir, "idx.npy")
	os.WriteFile(file, b.Bytes(), 0o644)

	s := dge.IndexRequestSpec{Kind: dge.IndexGather, IndexFile: file, Src: "hbm:0x0", Shape: []int{10, 64}, Dst: "hbm:0x10000", DType: "bf16", DMAs: 4}
	r, err := s.Request()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v of %v from a %dx%d %v table, indices at %v, MEMCOPY_DMA_CFG 0x%x\n", r.Kind, r.Index, r.Rows, r.Cols, r.DType, r.IndexAt, r.Config.DMACfg)
	p, err := r.Plan(dge.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Kind, "on", p.NumDMA, "DMA engines")

	s.DMAs = 17
	_, err = s.Request()
	fmt.Println(err)
	// Output:
	// indirect of [3 1 4] from a 10x64 BFLOAT16 table, indices at sbuf:0:0x37fc0, MEMCOPY_DMA_CFG 0xf
	// INDIRECT on 3 DMA engines
	// --dmas 17: CAYMAN has 16 DMA engines; give 1..16, or leave it out for all of them
}

// ParseInts reads --shape and --perm: decimal integers separated by ',' or 'x'.
func ExampleParseInts() {
	fmt.Println(dge.ParseInts("64,32", "--shape"))
	fmt.Println(dge.ParseInts("128x64", "--shape"))
	fmt.Println(dge.ParseInts("0x10", "--shape"))
	fmt.Println(dge.ParseInts("1,,0", "--perm"))
	// Output:
	// [64 32] <nil>
	// [128 64] <nil>
	// [] --shape "0x10": "0x10" looks like a hex number; write decimal integers separated by ',' (e.g. 64,32)
	// [] --perm "1,,0": an empty item (want comma-separated integers, e.g. 1,0)
}

// ReadRequestFile reads `tpbsim dge --request FILE.json`; a form mistake names the file.
func ExampleReadRequestFile() {
	dir, _ := os.MkdirTemp("", "req")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "r.json")
	os.WriteFile(file, []byte(`{"src":"hbm:0","dst":"sbuf:0:0","shape":[128,64],"dtype":"bf16"}`), 0o644)
	req, err := dge.ReadRequestFile(file, isa.GenInvalid)
	fmt.Println(req.Gen, req.In, err)
	os.WriteFile(file, []byte(`{"src":"hbm:0","src":"hbm:0"}`), 0o644)
	_, err = dge.ReadRequestFile(file, isa.GenInvalid)
	fmt.Println(err != nil && strings.HasPrefix(err.Error(), file+": "))
	// Output:
	// CAYMAN BFLOAT16 <nil>
	// true
}
