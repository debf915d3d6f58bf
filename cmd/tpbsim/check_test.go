package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/sim"
)

func writeISASrc(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckExitCodes(t *testing.T) {
	valid := writeISASrc(t, "v.s", "STREAM_TRANSPOSE in=BF16 out=BF16 nac=32 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n")
	bin := filepath.Join(t.TempDir(), "v.bin")
	if code, _, e := runISACLI(t, "asm", valid, "-o", bin); code != 0 {
		t.Fatal(e)
	}
	if code, out, _ := runISACLI(t, "check", bin); code != 0 || !strings.Contains(out, "1 words, 1 valid, 0 invalid") {
		t.Fatalf("%d %s", code, out)
	}
	// four words, the fourth breaks has_multiple_32_channels
	src := strings.Repeat("STREAM_TRANSPOSE in=BF16 out=BF16 nac=32 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n", 3) +
		"STREAM_TRANSPOSE in=BF16 out=BF16 nac=48 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n"
	bad := filepath.Join(t.TempDir(), "b.bin")
	if code, _, e := runISACLI(t, "asm", writeISASrc(t, "b.s", src), "-o", bad); code != 0 {
		t.Fatal(e)
	}
	code, out, _ := runISACLI(t, "check", bad)
	want := "word 3 (offset 0xc0) STREAM_TRANSPOSE: has_multiple_32_channels: num_active_channels = 48, legal: 32, 64, 96 or 128 [seed 000 §4.2, common.h:1767, HIGH/OBSERVED]"
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("%d\n%s", code, out)
	}
	// --json
	code, out, _ = runISACLI(t, "check", "--json", bad)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 4 {
		t.Fatalf("%d\n%s", code, out)
	}
	var w sim.CheckWordJSON
	if err := json.Unmarshal([]byte(lines[3]), &w); err != nil || w.Valid || w.Violations[0].Rule != "has_multiple_32_channels" || w.Violations[0].Offset != 34 {
		t.Fatalf("%v %+v", err, w)
	}
	// generation gate: DMA_GATHER_TRANSPOSE does not exist on SUNDA
	gx := filepath.Join(t.TempDir(), "gx.bin")
	os.WriteFile(gx, append([]byte{0xf1, 16}, make([]byte, 62)...), 0o644)
	if code, out, _ := runISACLI(t, "check", "--gen", "SUNDA", gx); code != 1 || !strings.Contains(out, "opcode_on_generation") {
		t.Fatalf("%d %s", code, out)
	}
	// length not a multiple of 64: exit 2, offset named
	short := filepath.Join(t.TempDir(), "s.bin")
	os.WriteFile(short, make([]byte, 64*2+10), 0o644)
	if code, _, e := runISACLI(t, "check", short); code != 2 || !strings.Contains(e, "offset 0x80") {
		t.Fatalf("%d %q", code, e)
	}
	if code, _, _ := runISACLI(t, "check", "--gen", "V9", bin); code != 2 {
		t.Fatal("bad --gen")
	}
	if code, _, _ := runISACLI(t, "check", filepath.Join(t.TempDir(), "nope.bin")); code != 2 {
		t.Fatal("missing file")
	}
	if code, _, _ := runISACLI(t, "check"); code != 2 {
		t.Fatal("no args")
	}
}

func TestCheckHelpNamesDefault(t *testing.T) {
	_, out, _ := runISACLI(t, "check", "--help")
	if !strings.Contains(out, "default CAYMAN") {
		t.Fatal(out)
	}
}

func TestDisasmLengthError(t *testing.T) {
	short := filepath.Join(t.TempDir(), "s.bin")
	os.WriteFile(short, make([]byte, 65), 0o644)
	if code, _, e := runISACLI(t, "disasm", short); code != 2 || !strings.Contains(e, "offset 0x40") {
		t.Fatalf("%d %q", code, e)
	}
}

// check refuses what run refuses before the run, under the same rule: each case is one word
// (a source line after the .gen/.engine lines) that run refuses as not executable (exit 1,
// nothing executed) and check reports as unsupported (exit 0), or as invalid (exit 1): the
// EVENTS and ADDR4 forms tpbsim does not execute (the register forms it executes are in
// TestAddrRegsCLI and sim's TestRegisterFormsCheckAgreesWithRun).
func TestCheckAgreesWithRun(t *testing.T) {
	const copyOp = "COPY in=FP32 out=FP32 nac=32 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]"
	for _, tc := range []struct {
		name, engine, word string
		invalid            bool   // check: invalid (exit 1), else unsupported (exit 0)
		rule               string // the rule both name
		text               string // what check's line says, after FILE:LINE and the opcode
	}{
		{"register wait naming no register", "DVE", copyOp + " wait_mode=WAIT_FOR_SEM_EQ_REG wait_idx=1 semaphore_value=64", false, "sim.event_reg_operand",
			"COPY: unsupported: rule sim.event_reg_operand: events.semaphore_value = 0x40"},
		{"event wait", "DVE", copyOp + " wait_mode=WAIT_FOR_EVT_0x06", false, "sim.executable_wait_mode",
			"COPY: unsupported: rule sim.executable_wait_mode: events.wait_mode = WAIT_FOR_EVT_0x06"},
		{"SEM_WR_REG naming no register", "DVE", copyOp + " events.update_mode=SEM_WR_REG_COMPLETE semaphore_value=0x100", false, "sim.event_reg_operand",
			"COPY: unsupported: rule sim.event_reg_operand: events.semaphore_value = 0x100"},
		{"shape-register ADDR4", "DVE", "COPY in=FP32 out=FP32 nac=32 src=0xc0000003[32@1] dst=sbuf:0:0x100[32@1]", false, "addr4_immediate",
			"COPY: unsupported: rule addr4_immediate: src_mem_pattern.start_addr = 0xc0000003 (marker 0xc0)"},
		{"register ADDR8", "SP", "DMAMEMCPY src_start_addr=reg:3 src_step_elem=[1,64] src_num_elem=[64,2] src_elem_size=2 dst_start_addr=sbuf:0:0x0 " +
			"dst_step_elem=[1,64] dst_num_elem=[64,2] dst_elem_size=2 in_dtype=BFLOAT16 out_dtype=BFLOAT16", false, "dge_addr_immediate",
			"DMAMEMCPY: unsupported: rule dge_addr_immediate: src_start_addr"},
		{"an opcode tpbsim only names, on its engine", "DVE", ".word 4110" + strings.Repeat("0", 124), false, "opcode_executable",
			"TENSOR_TENSOR_ARITH_OP: unsupported: rule opcode_executable: opcode = TENSOR_TENSOR_ARITH_OP (0x41)"},
		{"AMAX_INT on POOL", "POOL", "TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x200[32@1] in_dtype=INT32 out_dtype=UINT32 num_active_channels=32 op=AMAX_INT op_dim=X dst_mem_pattern=sbuf:0:0x1300[1@1]",
			false, "dve_alu_op_modelled", "TENSOR_REDUCE_ARITH_OP: unsupported: rule dve_alu_op_modelled: op = AMAX_INT"},
		{"8-byte transpose cells", "POOL", "TRANSPOSE_TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=INT64 out_dtype=INT64 num_active_channels=32 op=MAX_INT op_dim=X dst_mem_pattern=sbuf:0:0x1000[1@1]",
			false, "transpose_cell_width", "TRANSPOSE_TENSOR_REDUCE_ARITH_OP: unsupported: rule transpose_cell_width: in_dtype = INT64: transpose cells of 8 bytes are not modelled"},
		{"COPY on SP", "SP", copyOp, true, "opcode_legal_on_engine",
			"COPY: opcode_legal_on_engine: opcode = COPY on the SP queue, legal: on DVE, POOL, ACT [FACTS §D.2"},
		{"GpSimd PSUM", "POOL", "COPY in=FP32 out=FP32 nac=32 src=sbuf:0:0[32@1] dst=psum:0:0[32@1]", true, "gpsimd_cannot_access_psum",
			"COPY: gpsimd_cannot_access_psum: dst_mem_pattern.start_addr = 0x02000000, legal: an SBUF address"},
		{"work limit", "DVE", "COPY in=FP32 out=FP32 nac=32 src=sbuf:0:0[65535@0,65535@0,65535@0,65535@0] dst=sbuf:0:0x100[65535@0,65535@0,65535@0,65535@0]",
			true, "sim.max_elements", "COPY: sim.max_elements: streams "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := writeISASrc(t, "w.s", ".gen CAYMAN\n.engine "+tc.engine+"\n"+tc.word+"\n")
			code, out, _ := runISACLI(t, "check", src)
			wantCode, summary := 0, "1 words, 1 valid, 0 invalid, 1 unsupported"
			if tc.invalid {
				wantCode, summary = 1, "1 words, 0 valid, 1 invalid, 0 unsupported"
			}
			if code != wantCode || !strings.Contains(out, "w.s:3 "+tc.text) || !strings.Contains(out, summary) {
				t.Errorf("check: exit %d, want %d, %q and %q:\n%s", code, wantCode, tc.text, summary, out)
			}
			code, _, stderr := simCLI("run", src)
			if code != 1 || !strings.Contains(stderr, "nothing was executed") || !strings.Contains(stderr, "/w.s:3): ") ||
				!strings.Contains(stderr, ": rule "+tc.rule+":") {
				t.Errorf("run: exit %d, want 1 naming w.s:3 and rule %s:\n%s", code, tc.rule, stderr)
			}
		})
	}
}

// ruleAt matches the rule of one instruction of run's pre-run error: its FILE:LINE, its rule.
var ruleAt = regexp.MustCompile(`\(([^(),]*:\d+)[,)].*?: rule ([A-Za-z0-9_.]+)`)

// Every program of testdata/sim: the words `check --json` refuses (an invalid word's first
// violation, an unsupported word's rule) are the instructions `run` refuses before the run,
// at the same FILE:LINE under the same rule, and a program check finds nothing in is not
// refused before the run.
func TestCheckAgreesWithRunOnCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "sim", "*.tpb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs under testdata/sim (%v)", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".tpb"), func(t *testing.T) {
			code, out, stderr := runISACLI(t, "check", "--json", f)
			if code == 2 {
				t.Fatalf("check: exit 2: %s", stderr)
			}
			var want []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var w sim.CheckWordJSON
				if err := json.Unmarshal([]byte(line), &w); err != nil {
					t.Fatalf("check --json line %q: %v", line, err)
				}
				switch {
				case len(w.Violations) > 0:
					want = append(want, w.At+" "+w.Violations[0].Rule)
				case w.Unsupported != "":
					rule, _, _ := strings.Cut(strings.TrimPrefix(w.Unsupported, "rule "), ":")
					want = append(want, w.At+" "+rule)
				}
			}
			_, _, stderr = simCLI("run", f, "--quiet", "--races", "off")
			var got []string
			if strings.Contains(stderr, "fail the checks made before the run") {
				for _, m := range ruleAt.FindAllStringSubmatch(stderr, -1) {
					got = append(got, m[1]+" "+m[2])
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(want, got) {
				t.Errorf("check refuses %v, run before the run %v:\n%s", want, got, stderr)
			}
		})
	}
}

// Every program the NKI lowering makes of the kernels of examples/nki (and their DMA words: the
// loads, stores, gathers and DMA transposes it emits) is one check calls valid and supported:
// the lowering's self-check and check are one pipeline.
func TestCheckAcceptsLoweredKernels(t *testing.T) {
	needPythonNumpy(t)
	files, _ := filepath.Glob("../../examples/nki/*.py")
	if len(files) == 0 {
		t.Fatal("no kernels under examples/nki")
	}
	programs, dmas := 0, 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".py"), func(t *testing.T) {
			code, _, stderr := simCLI("nki", "run", "--print-program", f)
			if code != 0 {
				t.Fatalf("nki run: exit %d\n%s", code, stderr)
			}
			for i, prog := range loweredPrograms(stderr) {
				p := writeISASrc(t, fmt.Sprintf("k%d.tpb", i), prog)
				code, out, errs := runISACLI(t, "check", p)
				if code != 0 || !strings.Contains(out, " 0 invalid, 0 unsupported on ") {
					t.Errorf("check of lowered program %d: exit %d\n%s%s\n%s", i, code, out, errs, prog)
				}
				programs++
				dmas += strings.Count(prog, "\nDMA")
			}
		})
	}
	if programs == 0 || dmas == 0 {
		t.Errorf("checked %d lowered programs with %d DMA words: --print-program's form changed?", programs, dmas)
	}
}

// loweredPrograms cuts the programs nki run --print-program prints (each from its "# kernel "
// line, while lines are comments, directives or instructions) out of the rest of stderr.
func loweredPrograms(stderr string) []string {
	var out []string
	var cur *strings.Builder
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "# kernel ") {
			out = append(out, "")
			cur = &strings.Builder{}
		}
		if cur == nil {
			continue
		}
		directive := len(line) > 1 && line[0] == '.' && line[1] >= 'a' && line[1] <= 'z'
		if line == "" || !(line[0] == '#' || directive || line[0] == ' ' || line[0] >= 'A' && line[0] <= 'Z') {
			out[len(out)-1], cur = cur.String(), nil
			continue
		}
		cur.WriteString(line + "\n")
		out[len(out)-1] = cur.String()
	}
	return out
}
