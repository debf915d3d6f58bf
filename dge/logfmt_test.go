package dge

import (
	"math/rand"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// squash folds every run of white space into one blank (the seed wraps long formats).
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestLogFormatsQuoted: every recovered format's quoted part appears, C verbs and all, in the
// seed or FACTS text it cites (read from ../shared; skipped when the specification is absent).
func TestLogFormatsQuoted(t *testing.T) {
	var spec strings.Builder
	for _, f := range []string{"../../shared/seeds/003_019488e87fcf8a32.txt", "../../shared/spec/FACTS.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Skipf("the specification is not beside the repository: %v", err)
		}
		spec.WriteString(squash(string(b)))
	}
	text := spec.String()
	for _, f := range LogFormats() {
		t.Run(f.Firmware, func(t *testing.T) {
			q := f.Quoted()
			switch {
			case f.Invented:
				if !strings.HasPrefix(f.Firmware, "tpbsim: ") {
					t.Errorf("an invented line must start \"tpbsim: \": %q", f.Firmware)
				}
			case q == "":
				if !strings.Contains(text, f.Name) {
					t.Errorf("the function %q of an unquoted line is not named by the sources", f.Name)
				}
			case !strings.Contains(text, squash(q)):
				t.Errorf("%q (%s) is not in the seed or FACTS", q, f.Source)
			}
		})
	}
}

// formatPattern turns a Go format into a pattern matching the lines it prints.
func formatPattern(goFmt string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(goFmt); i++ {
		if goFmt[i] == '%' && i+1 < len(goFmt) {
			i++
			switch goFmt[i] {
			case 'd':
				b.WriteString(`-?[0-9]+`)
			case 'x', 'X':
				b.WriteString(`-?[0-9a-fA-F]+`)
			case 's':
				b.WriteString(`.+?`)
			default:
				b.WriteString(regexp.QuoteMeta(goFmt[i-1 : i+1]))
			}
			continue
		}
		b.WriteString(regexp.QuoteMeta(goFmt[i : i+1]))
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// TestEveryLogLineHasItsFormat: every line the planner logs, for requests of every kind on every
// generation and for the four DMA instructions, is one of LogFormats or a "tpbsim: " note, so no
// format is written anywhere else; and every format appears in some plan.
func TestEveryLogLineHasItsFormat(t *testing.T) {
	var pats []*regexp.Regexp
	for _, f := range LogFormats() {
		pats = append(pats, formatPattern(f.goFmt))
	}
	used := make([]bool, len(pats))
	var plans []*Plan
	rng := rand.New(rand.NewSource(14))
	for i := 0; i < 300; i++ {
		c := randCase(rng, "any")
		if p, err := PlanRequest(c.req, Options{}); err == nil {
			plans = append(plans, p)
		}
	}
	for _, g := range isa.Generations {
		for _, in := range sampleInsts(g) {
			if p, err := PlanInst(g, in, Config{}, Options{}); err == nil {
				plans = append(plans, p)
			}
		}
		xpose := tensorReq(t, g, 0x1000, sbufAddr(g, 0, 0), []int{256, 64}, []int{1, 0}, isa.DTypeBFLOAT16)
		xpose.CarveoutCfg = 2 << 16
		sb2sb := tensorReq(t, g, sbufAddr(g, 0, 0), sbufAddr(g, 0, 64<<10), []int{64, 128}, []int{1, 0}, isa.DTypeFP16)
		hbm := tensorReq(t, g, 0, 0x100000, []int{64, 64}, nil, isa.DTypeFP32)
		credits := tensorReq(t, g, 0x1000, sbufAddr(g, 0, 0), []int{96, 5, 7, 128}, []int{3, 2, 1, 0}, isa.DTypeBFLOAT16)
		credits.DMACfg, credits.CarveoutCfg = 1, 2<<16
		for _, r := range []Request{xpose, sb2sb, hbm, credits} {
			plans = append(plans, mustPlan(t, r))
		}
	}
	for _, p := range plans {
		for _, l := range p.Log {
			if strings.HasPrefix(l, "tpbsim: ") && !strings.HasPrefix(l, "tpbsim: wait_for_credit: ") {
				continue
			}
			found := false
			for k, re := range pats {
				if re.MatchString(l) {
					used[k], found = true, true
					break
				}
			}
			if !found {
				t.Errorf("%v plan logs %q, which no LogFormat prints", p.Gen, l)
			}
		}
	}
	for k, f := range LogFormats() {
		if !used[k] {
			t.Errorf("no plan printed %q", f.Firmware)
		}
	}
}

// sampleInsts is one valid DMA instruction of each DGE kind the generation has (DIRECT2D,
// INDIRECT1D, and from CAYMAN GATHER_XPOSE and DMA_TRANSPOSE), each planned by PlanInst.
func sampleInsts(g isa.Generation) []isa.Inst {
	h := func(op isa.Opcode) isa.Header { return isa.Header{Opcode: op, InstWordLen: 16} }
	out := []isa.Inst{
		&isa.DMADirect2D{Header: h(isa.OpDMAMEMCPY), Semaphore: 1, SemIncrement: 1,
			SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: [2]int32{1, 64}, SrcNumElem: [2]uint16{64, 32}, SrcElemSize: 2,
			DstStartAddr: isa.Addr8(0x100000), DstStepElem: [2]int32{1, 64}, DstNumElem: [2]uint16{64, 32}, DstElemSize: 2,
			InDtype: isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16},
		&isa.DMAIndirect1D{Header: h(isa.OpDMA_INDIRECT), Semaphore: 1, SemIncrement: 1, IdxNumActiveChannels: 128,
			Flags:        isa.MakeDMAIndirectFlags(isa.SrcIndirection, false, false, isa.IndirectDimX, isa.IndirectDimX),
			SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: 1, SrcNumElem: 100, SrcElemSize: 8,
			DstStartAddr: isa.Addr8(0x100000), DstStepElem: 1, DstNumElem: 8, DstElemSize: 8,
			SrcIdxStartAddr: isa.Addr4(0x100), InDtype: isa.DTypeUINT32, OutDtype: isa.DTypeUINT32},
	}
	if g == isa.SUNDA {
		return out
	}
	xp := &isa.DMADirect2DXpose{Header: h(isa.OpDMA_TRANSPOSE), InDtype: isa.DTypeFP16, OutDtype: isa.DTypeFP16,
		TileSrcRowStep: 200, TileSrcRows: 16, TileSrcCols: 100, Semaphore: 1}
	xp.SrcStartAddr, xp.DstStartAddr = isa.Addr8(0x4000), isa.LocalAddr8(0x100)
	gx := &isa.DMAGatherXpose{Header: h(isa.OpDMA_GATHER_TRANSPOSE), Semaphore: 4, IdxNumActiveChannels: 128,
		SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: [2]int32{1, 64}, SrcNumElem: [2]uint16{64, 128},
		SrcIdxStartAddr: isa.Addr4(0x200), DstStartAddr: isa.LocalAddr8(0x10000), DstStepElem1: int32(g.Geometry().StateBufPartitionSize / 2),
		DstNumElem: [2]uint16{128, 64}, ElemSize: 128,
		Dtype: isa.MakeDTypePair(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}
	return append(out, xp, gx)
}
