package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
)

// TestBoundRegsReachGatherSkip: a program sets bound-check register 5 (.bound_reg, the JSON
// form, or --bound-reg) and its DMA_GATHER_TRANSPOSE with src_idx_bound_reg = enabled |
// bc_disable_oob_error_notif | 5 skips the rows whose index is >= R[5] (NKI's oob_mode=skip),
// leaving them untouched; without the notif bit the same index fails the run (exit 1), and a
// register past 63 is refused.
func TestBoundRegsReachGatherSkip(t *testing.T) {
	dir := t.TempDir()
	j := func(n string) string { return filepath.Join(dir, n) }
	u16 := func(name string, shape []int, vals []uint16) string {
		b := make([]byte, 2*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint16(b[2*i:], v)
		}
		var buf bytes.Buffer
		npy.Write(&buf, &npy.Array{Dtype: "u2", Shape: shape, Data: b})
		os.WriteFile(j(name), buf.Bytes(), 0o644)
		return j(name)
	}
	const rows, cols, bound = 128, 16, 100
	table := make([]uint16, rows*cols)
	for i := range table {
		table[i] = uint16(i + 1)
	}
	idx := make([]byte, 4*128)
	for p := 0; p < 128; p++ {
		binary.LittleEndian.PutUint32(idx[4*p:], uint32(p)) // rows 100..127 are past R[5]
	}
	var ib bytes.Buffer
	npy.Write(&ib, &npy.Array{Dtype: "u4", Shape: []int{128, 1}, Data: idx})
	os.WriteFile(j("idx.npy"), ib.Bytes(), 0o644)
	want := make([]uint16, cols*128) // dst[f][j] = table[j][f] for j < bound, else untouched (0)
	for f := 0; f < cols; f++ {
		for jj := 0; jj < bound; jj++ {
			want[f*128+jj] = table[jj*cols+f]
		}
	}
	tbl, exp := u16("table.npy", []int{rows * cols}, table), u16("want.npy", []int{cols, 128}, want)
	inst := func(bc string) string {
		return "DMA_GATHER_TRANSPOSE semaphore=1 idx_num_active_channels=128 src_idx_bound_reg=" + bc +
			" src_start_addr=hbm:0x1000 src_step_elem=[1,16] src_num_elem=[16,128] src_idx_start_addr=sbuf:0:0x100" +
			" dst_start_addr=sbuf:0:0x8000 dst_step_elem_1=131072 dst_num_elem=[128,16] elem_size=32" +
			" dtype.dtype_lo=BFLOAT16 dtype.dtype_hi=BFLOAT16 flags.gather_dim=Y\n"
	}
	write := func(name, body string) string { os.WriteFile(j(name), []byte(body), 0o644); return j(name) }
	args := func(prog string, extra ...string) []string {
		return append([]string{"run", prog, "--quiet", "--load", "hbm:0x1000=" + tbl, "--load", "sbuf:0:0x100=" + j("idx.npy"),
			"--expect", "sbuf:0:0x8000=16x128:bf16:" + exp}, extra...)
	}
	for _, c := range []struct {
		name string
		argv []string
		code int
		want string
	}{
		{"directive, skip", args(write("a.tpb", ".bound_reg 5 100\n.engine POOL\n"+inst("0xc5"))), 0, ""},
		{"JSON form, skip", args(write("b.json", `{"bound_regs": {"5": 100}}`+"\n"+`{"opcode":"DMA_GATHER_TRANSPOSE","engine":"POOL","semaphore":1,"idx_num_active_channels":128,"src_idx_bound_reg":"0xc5","src_start_addr":"hbm:0x1000","src_step_elem":[1,16],"src_num_elem":[16,128],"src_idx_start_addr":"sbuf:0:0x100","dst_start_addr":"sbuf:0:0x8000","dst_step_elem_1":131072,"dst_num_elem":[128,16],"elem_size":32,"dtype":{"dtype_lo":"BFLOAT16","dtype_hi":"BFLOAT16"},"flags":{"gather_dim":"Y"}}`+"\n")), 0, ""},
		{"--bound-reg flag, skip", args(write("c.tpb", ".engine POOL\n"+inst("0xc5")), "--bound-reg", "5=100"), 0, ""},
		{"no notif bit: fails", args(write("d.tpb", ".bound_reg 5 100\n.engine POOL\n"+inst("0x85"))), 1, "dma_index_in_bound"},
		{"flag contradicts directive", args(j("a.tpb"), "--bound-reg", "5=7"), 2, "bound_reg 5"},
		{"register 64", args(write("e.tpb", ".bound_reg 64 1\n.engine POOL\n"+inst("0xc5"))), 2, "0..63"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errb := simCLI(c.argv...)
			if code != c.code || !strings.Contains(out+errb, c.want) {
				t.Fatalf("exit %d (want %d, %q)\n%s%s", code, c.code, c.want, out, errb)
			}
		})
	}
}

// TestCheckSaysUnmodelled: check reports what run refuses as unmodelled (an event wait form)
// as unsupported, naming the rule.
func TestCheckSaysUnmodelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.s")
	os.WriteFile(p, []byte("COPY in=BF16 out=BF16 nac=32 src=sbuf:0:0x0[64@1] dst=sbuf:0:0x1000[64@1] wait_mode=WAIT_FOR_EVT_0x06\n"), 0o644)
	code, out, _ := simCLI("check", p)
	if code != 0 || !strings.Contains(out, "unsupported: rule sim.executable_wait_mode") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if code, _, errb := simCLI("run", p); code != 1 || !strings.Contains(errb, "sim.executable_wait_mode") {
		t.Fatalf("run: exit %d %s", code, errb)
	}
}

// TestAddrRegsCLI: the address registers are set by .addr_reg, the JSON form's "addr_regs" and
// run --addr-reg (a number or an on-chip location), the program's COPY reads through reg:3 and
// writes through reg:4, and --expect holds the moved data; a flag contradicting the file, a
// register past 63, a location that is no ADDR4 and a register set twice are usage errors;
// disasm prints the settings first, as text and as JSON, and both run alike.
func TestAddrRegsCLI(t *testing.T) {
	dir := t.TempDir()
	j := func(n string) string { return filepath.Join(dir, n) }
	write := func(name, body string) string { os.WriteFile(j(name), []byte(body), 0o644); return j(name) }
	vals := make([]byte, 4*2*4) // 2 partitions x 4 fp32
	for i := range 8 {
		binary.LittleEndian.PutUint32(vals[4*i:], math.Float32bits(float32(i)*1.5-2))
	}
	var b bytes.Buffer
	if err := npy.Write(&b, &npy.Array{Dtype: "f4", Shape: []int{2, 4}, Data: vals}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(j("in.npy"), b.Bytes(), 0o644)
	const copyLine = "COPY src=reg:3[4@1] in=FP32 out=FP32 nac=2 dst=reg:4[4@1]\n"
	text := write("a.tpb", ".addr_reg 3 sbuf:2:0x100\n.addr_reg 4 0x140040\n.engine DVE\n"+copyLine)
	bare := write("b.tpb", ".engine DVE\n"+copyLine)
	js := write("c.json", `{"addr_regs": {"3": "sbuf:2:0x100", "4": "0x140040"}}`+"\n"+
		`{"opcode": "COPY", "engine": "DVE", "src_mem_pattern": {"start_addr": "reg:3", "num_elem": [4,1,1,1], "step_elem": [1,1,1,1]}, "in_dtype": "FP32", "out_dtype": "FP32", "num_active_channels": 2, "dst_mem_pattern": {"start_addr": "reg:4", "num_elem": [4,1,1,1], "step_elem": [1,1,1,1]}}`+"\n")
	run := func(prog string, extra ...string) []string {
		return append([]string{"run", prog, "--quiet", "--load", "sbuf:2:0x100=" + j("in.npy"), "--expect", "sbuf:5:0x40=2x4:FP32:" + j("in.npy")}, extra...)
	}
	for _, c := range []struct {
		name string
		argv []string
		code int
		want string
	}{
		{"directive", run(text), 0, ""},
		{"JSON form", run(js), 0, ""},
		{"--addr-reg flags", run(bare, "--addr-reg", "3=sbuf:2:0x100", "--addr-reg", "4=0x140040"), 0, ""},
		{"flag agreeing with the file", run(text, "--addr-reg", "4=sbuf:5:0x40"), 0, ""},
		{"register left unset", run(bare, "--addr-reg", "3=sbuf:2:0x100"), 1, "sim.addr_reg_set"},
		{"flag contradicts directive", run(text, "--addr-reg", "3=sbuf:2:0x104"), 2, "sets addr_reg 3 to sbuf:2:0x100"},
		{"flag register 64", run(bare, "--addr-reg", "64=0"), 2, "N 0..63"},
		{"flag value in HBM", run(bare, "--addr-reg", "3=hbm:0x0"), 2, "not hbm"},
		{"directive set twice", run(write("d.tpb", ".addr_reg 3 0\n.addr_reg 3 0\n.engine DVE\n"+copyLine)), 2, "set twice"},
		{".gen after .addr_reg", run(write("e.tpb", ".addr_reg 3 sbuf:2:0x100\n.gen MAVERICK\n.engine DVE\n"+copyLine)), 2, ".gen must come before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errb := simCLI(c.argv...)
			if code != c.code || !strings.Contains(out+errb, c.want) {
				t.Fatalf("exit %d (want %d, %q)\n%s%s", code, c.code, c.want, out, errb)
			}
		})
	}
	for _, form := range []string{"text", "json"} {
		t.Run("disasm "+form, func(t *testing.T) {
			argv := []string{"disasm", text}
			first := ".addr_reg 3 sbuf:2:0x100\n.addr_reg 4 sbuf:5:0x40\n"
			if form == "json" {
				argv, first = append(argv, "--json"), `{"addr_regs": {"3": "sbuf:2:0x100", "4": "sbuf:5:0x40"}}`+"\n"
			}
			code, out, errb := simCLI(argv...)
			if code != 0 || !strings.HasPrefix(out, first) {
				t.Fatalf("exit %d, want the settings first (%q)\n%s%s", code, first, out, errb)
			}
			back := write("back."+map[string]string{"text": "tpb", "json": "json"}[form], out)
			if code, out, errb := simCLI(run(back)...); code != 0 {
				t.Fatalf("disasm output does not run alike: exit %d\n%s%s", code, out, errb)
			}
		})
	}
}

// TestDMATransposeFieldsNamed: DMA_TRANSPOSE's src_start_addr, dst_start_addr and dst_row_step
// (INFERRED offsets 16, 40, 48) are fields asm takes and disasm prints, and check agrees with
// run on them: a valid word passes both, an overlapping one fails both with the same rule.
func TestDMATransposeFieldsNamed(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, src, dst string
		code           int
		rule           string
	}{
		{"valid", "hbm:0x1000", "sbuf:0:0x100", 0, ""},
		{"overlap", "hbm:0x1000", "hbm:0x1040", 1, "dge_src_dst_disjoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".tpb")
			os.WriteFile(p, []byte(".engine SP\nDMA_TRANSPOSE semaphore=1 in_dtype=BFLOAT16 out_dtype=BFLOAT16 tile_src_rows=16 tile_src_cols=128 tile_src_row_step=128 src_start_addr="+
				c.src+" dst_start_addr="+c.dst+" dst_row_step=0\n"), 0o644)
			code, out, _ := simCLI("disasm", p)
			if code != 0 || !strings.Contains(out, "src_start_addr="+c.src) || !strings.Contains(out, "dst_start_addr="+c.dst) {
				t.Fatalf("disasm: exit %d\n%s", code, out)
			}
			ccode, cout, _ := simCLI("check", p)
			rcode, _, rerr := simCLI("run", p, "--quiet")
			if ccode != c.code || rcode != c.code || !strings.Contains(cout, c.rule) || !strings.Contains(rerr, c.rule) {
				t.Fatalf("check exit %d, run exit %d (want %d, rule %q)\n%s%s", ccode, rcode, c.code, c.rule, cout, rerr)
			}
		})
	}
}

// TestDtableDumpJSONSnakeCase: every key of dtable dump --json is snake_case (control rows'
// fields used Name / Bytes / Value).
func TestDtableDumpJSONSnakeCase(t *testing.T) {
	code, out, errb := simCLI("dtable", "dump", filepath.Join("..", "..", "testdata", "ucode", "dve_bin_gen3"), "--json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errb)
	}
	for _, k := range regexp.MustCompile(`"([A-Za-z_0-9]+)":`).FindAllStringSubmatch(out, -1) {
		if k[1] != strings.ToLower(k[1]) {
			t.Fatalf("key %q is not snake_case", k[1])
		}
	}
}

// TestExplainConflicts: explain conflicts lists every conflict, and every registry entry a
// conflict points to exists (tpbsim explain ID exits 0).
func TestExplainConflicts(t *testing.T) {
	code, out, _ := simCLI("explain", "conflicts")
	if code != 0 || len(isa.Conflicts()) == 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range isa.Conflicts() {
		if !strings.Contains(out, c.ID) {
			t.Errorf("%s not listed", c.ID)
		}
		for _, id := range strings.Split(c.See, ", ") {
			if code, _, errb := simCLI("explain", id); code != 0 {
				t.Errorf("%s: see %s: exit %d %s", c.ID, id, code, errb)
			}
		}
	}
}
