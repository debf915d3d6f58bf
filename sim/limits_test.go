package sim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// hugeS4 is an S4D4_TR over 128 channels whose step-0 walks name 65535 x 1000 fp32 elements
// (under the 2^26 element limit, 32-64 GiB of host buffers: the reviewer's OOM repro).
func hugeS4(g isa.Generation, op isa.Opcode) *isa.S4D4TR {
	big := isa.Tensor4D{StartAddr: sbufAddr(g, 0, 0), NumElem: [4]uint16{65535, 1000, 1, 1}}
	in := &isa.S4D4TR{Header: isa.Header{Opcode: op, InstWordLen: 16}, SrcMemPattern: big, DstMemPattern: big,
		InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: 128}
	in.DstMemPattern.StartAddr = sbufAddr(g, 0, 0x100)
	if op == isa.OpTENSOR_REDUCE_ARITH_OP {
		in.Op, in.OpDim = isa.ALUAdd, isa.SubdimXYZW
		in.DstMemPattern.NumElem = [4]uint16{1, 1, 1, 1}
	}
	return in
}

// limitErr runs p and returns the one pre-run error, which must be a fault.ErrLimit with rule.
func limitErr(t *testing.T, m *Machine, p *Program, rule string) *InstError {
	t.Helper()
	t0 := time.Now()
	_, err := m.Run(p)
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("the refusal took %v", d)
	}
	var pe *ProgramError
	if !errors.As(err, &pe) || len(pe.Errs) != 1 {
		t.Fatalf("want one pre-run error, got %v", err)
	}
	ie := pe.Errs[0]
	if !errors.Is(err, fault.ErrLimit) || ie.Rule != rule {
		t.Fatalf("want fault.ErrLimit rule %s, got %v", rule, err)
	}
	return ie
}

// A valid DVE instruction within the element limit whose walks would need tens of GiB of host
// buffers is refused before anything runs (the host would run out of memory), naming the
// instruction, the limit and how to raise it.
func TestStreamBytesLimitDVE(t *testing.T) {
	g := isa.CAYMAN
	for _, op := range []isa.Opcode{isa.OpCOPY, isa.OpTENSOR_REDUCE_ARITH_OP} {
		t.Run(op.String(), func(t *testing.T) {
			m, _ := New(Config{Gen: g})
			fillRandom(t, m, 1)
			before := snapshot(m)
			first := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x2000), 64, isa.Events{})
			ie := limitErr(t, m, prog(q(isa.EngineDVE, first, hugeS4(g, op))), RuleMaxStreamBytes)
			if ie.Engine != "DVE" || ie.Index != 1 || ie.Opcode != op {
				t.Errorf("error names %s instruction %d %v", ie.Engine, ie.Index, ie.Opcode)
			}
			msg := ie.Error()
			for _, s := range []string{fmt.Sprint(DefaultMaxStreamBytes), "--max-elements", "128 channels"} {
				if !strings.Contains(msg, s) {
					t.Errorf("%v: message lacks %q: %s", op, s, msg)
				}
			}
			if !bytes.Equal(before, snapshot(m)) {
				t.Errorf("%v: memory changed although nothing may run", op)
			}
		})
	}
	// --max-elements scales the byte limit: 2^36 elements allow 2^40 bytes, and the check passes
	m, _ := New(Config{Gen: g, MaxElements: 1 << 36})
	if err := m.Check(prog(q(isa.EngineDVE, hugeS4(g, isa.OpCOPY)))); err != nil {
		t.Errorf("with MaxElements 2^36: %v", err)
	}
	if m.dma.engines.MaxJobBytes != 1<<40 {
		t.Errorf("DMA job cap %d, want the stream limit", m.dma.engines.MaxJobBytes)
	}
	// an explicit MaxStreamBytes is named as such
	m, _ = New(Config{Gen: g, MaxStreamBytes: 100})
	ie := limitErr(t, m, prog(q(isa.EngineDVE, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x2000), 64, isa.Events{}))), RuleMaxStreamBytes)
	if !strings.Contains(ie.Error(), "100 bytes (sim.Config.MaxStreamBytes)") {
		t.Errorf("message: %v", ie)
	}
}

// The DVE executor's own guard gets the machine's limit: a library user who calls the unit
// directly (bypassing the check) still gets an error, not an allocation.
func TestStreamBytesLimitReachesExecutor(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g, MaxElements: 1 << 10})
	u := m.newUnit(isa.EngineDVE)
	_, err := u.exec(m, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x2000), 256, isa.Events{}))
	if err == nil || !strings.Contains(err.Error(), "dve_max_stream_bytes") {
		t.Fatalf("executor with a 16 KiB limit ran 64 KiB: %v", err)
	}
	r := &run{m: m, prog: prog()}
	ie := r.execErr(&engine{name: "DVE"}, Instr{}, err).(*InstError)
	if !errors.Is(ie, fault.ErrLimit) {
		t.Errorf("executor limit error is not fault.ErrLimit: %v", ie)
	}
}

// dmaBases are valid CAYMAN instructions of every DMA opcode the machine executes.
func dmaBases(g isa.Generation) map[string]isa.Inst {
	dx := &isa.DMADirect2DXpose{Header: isa.Header{Opcode: isa.OpDMA_TRANSPOSE, InstWordLen: 16}, InDtype: isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16,
		TileSrcRows: 16, TileSrcCols: 128, TileSrcRowStep: 128}
	binary.LittleEndian.PutUint64(dx.Raw[16:], 0x100000)
	binary.LittleEndian.PutUint64(dx.Raw[40:], uint64(isa.LocalAddr8(0)))
	return map[string]isa.Inst{
		"DMAMEMCPY": &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16}, SrcStartAddr: 0x1000, SrcStepElem: [2]int32{2, 256},
			SrcNumElem: [2]uint16{64, 16}, SrcElemSize: 2, DstStartAddr: isa.LocalAddr8(0x40), DstStepElem: [2]int32{1, 64},
			DstNumElem: [2]uint16{64, 16}, DstElemSize: 2, InDtype: isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16},
		"DMA_INDIRECT": &isa.DMAIndirect1D{Header: isa.Header{Opcode: isa.OpDMA_INDIRECT, InstWordLen: 16}, IdxNumActiveChannels: 128,
			SrcStartAddr: 0x1000, SrcStepElem: 1, SrcNumElem: 128, SrcElemSize: 256, DstStartAddr: isa.LocalAddr8(0x1000), DstStepElem: 1,
			DstNumElem: 128, DstElemSize: 256, SrcIdxStartAddr: 0x100, InDtype: isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16},
		"DMA_GATHER_TRANSPOSE": &isa.DMAGatherXpose{Header: isa.Header{Opcode: isa.OpDMA_GATHER_TRANSPOSE, InstWordLen: 16}, IdxNumActiveChannels: 128,
			SrcStartAddr: 0x1000, SrcStepElem: [2]int32{1, 256}, SrcNumElem: [2]uint16{128, 16}, SrcIdxStartAddr: 0x100,
			DstStartAddr: isa.LocalAddr8(0x1000), DstStepElem1: int32(g.Geometry().StateBufPartitionSize / 2), DstNumElem: [2]uint16{16, 128}, ElemSize: 256,
			Dtype: isa.MakeDTypePair(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)},
		"DMA_TRANSPOSE": dx,
	}
}

// Every DMA opcode the machine executes counts against the element and byte limits before the
// run, on the descriptors the DGE makes of it.
func TestWorkLimitsCountDMA(t *testing.T) {
	g := isa.CAYMAN
	for name, in := range dmaBases(g) {
		t.Run(name, func(t *testing.T) {
			eng := isa.EngineTPB_SP
			if in.Hdr().Opcode == isa.OpDMA_GATHER_TRANSPOSE {
				eng = isa.EnginePOOL
			}
			if vs := isa.Validate(in, g); len(vs) > 0 {
				t.Fatalf("%s base invalid: %v", name, vs)
			}
			m, _ := New(Config{Gen: g})
			if err := m.Check(prog(q(eng, in))); err != nil {
				t.Fatalf("%s with the default limits: %v", name, err)
			}
			m, _ = New(Config{Gen: g, MaxElements: 100})
			ie := limitErr(t, m, prog(q(eng, in)), RuleMaxElements)
			if ie.Opcode != in.Hdr().Opcode || !strings.Contains(ie.Error(), "DMA descriptor") || !strings.Contains(ie.Error(), "--max-elements") {
				t.Errorf("%s: %v", name, ie)
			}
			m, _ = New(Config{Gen: g, MaxStreamBytes: 1000})
			limitErr(t, m, prog(q(eng, in)), RuleMaxStreamBytes)
		})
	}
	// the reviewer's repro: 65535 x 65535 one-byte step-0 elements ran for minutes
	m, _ := New(Config{Gen: g})
	step0 := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16}, SrcNumElem: [2]uint16{65535, 65535}, SrcElemSize: 1,
		DstStartAddr: 0x100000000, DstNumElem: [2]uint16{65535, 65535}, DstElemSize: 1, InDtype: isa.DTypeUINT8, OutDtype: isa.DTypeUINT8}
	ie := limitErr(t, m, prog(q(isa.EngineTPB_SP, step0)), RuleMaxElements)
	if !strings.Contains(ie.Error(), "4294836225 elements") {
		t.Errorf("message: %v", ie)
	}
	// a contiguous 4 GiB copy merges into few large elements but passes the byte limit
	contig := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16}, SrcStepElem: [2]int32{1, 65535}, SrcNumElem: [2]uint16{65535, 65535}, SrcElemSize: 1,
		DstStartAddr: 0x200000000, DstStepElem: [2]int32{1, 65535}, DstNumElem: [2]uint16{65535, 65535}, DstElemSize: 1, InDtype: isa.DTypeUINT8, OutDtype: isa.DTypeUINT8}
	limitErr(t, m, prog(q(isa.EngineTPB_SP, contig)), RuleMaxStreamBytes)
}

// Config.CheckPlan applies a DMA instruction's limits to a DGE request planned outside a
// program (tpbsim dge run), with the caller's hint on raising them.
func TestCheckPlan(t *testing.T) {
	g := isa.CAYMAN
	plan := func(shape, perm []int, d isa.DType) *dge.Plan {
		t.Helper()
		r, err := dge.TensorRequest(g, 0, 1<<36, shape, perm, d)
		if err != nil {
			t.Fatal(err)
		}
		p, err := dge.PlanRequest(r, dge.Options{Quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const how = "tpbsim dge run --max-elements N"
	// the reviewer's repro: a 65536 x 65536 UINT8 transpose, 2^32 one-byte elements
	err := Config{}.CheckPlan(plan([]int{65536, 65536}, []int{1, 0}, isa.DTypeUINT8), how)
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, fault.ErrLimit) || le.Rule != RuleMaxElements ||
		!strings.Contains(err.Error(), "streams 4294967296 elements in its 16 DMA descriptor(s) (their elements: a contiguous run is one); tpbsim's limit is 67108864 (raise it with "+how+")") {
		t.Errorf("transpose: %v", err)
	}
	if w := fmt.Errorf("dge run: %w", fault.Wrap("req.json", err)); fault.Path(w) != "req.json: descriptors" || fault.Rule(w) != RuleMaxElements {
		t.Errorf("wrapped: path %q rule %q", fault.Path(w), fault.Rule(w))
	}
	// a contiguous 2 GiB copy folds into few elements but passes the byte limit
	err = Config{}.CheckPlan(plan([]int{1 << 31}, nil, isa.DTypeUINT8), how)
	if !errors.As(err, &le) || le.Rule != RuleMaxStreamBytes || !strings.Contains(err.Error(), "16 per element of the element limit 67108864 (raise it with "+how+")") {
		t.Errorf("copy: %v", err)
	}
	// raising the element limit raises both; an explicit byte limit is named
	if err := (Config{MaxElements: 1 << 32}).CheckPlan(plan([]int{65536, 65536}, []int{1, 0}, isa.DTypeUINT8), how); err != nil {
		t.Errorf("with MaxElements 2^32: %v", err)
	}
	err = Config{MaxStreamBytes: 100}.CheckPlan(plan([]int{64}, nil, isa.DTypeFP32), how)
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "100 bytes (sim.Config.MaxStreamBytes)") {
		t.Errorf("explicit byte limit: %v", err)
	}
}

// Shape-register and indirect ADDR4 forms are refused by the check before the run (not when
// reached), naming the instruction, the field and the rule. (Register mode, 0x80, is resolved
// when the instruction issues: TestRegisterFormsCheckAgreesWithRun.)
func TestRegisterAddressRefusedBeforeRun(t *testing.T) {
	for _, c := range []struct {
		g isa.Generation
		a isa.Addr4
	}{{isa.CAYMAN, 0xC0000005}, {isa.CAYMAN, 0x40000000}, {isa.MARIANA, 0x20000000}} {
		t.Run(fmt.Sprintf("%v 0x%x", c.g, uint32(c.a)), func(t *testing.T) {
			m, _ := New(Config{Gen: c.g})
			fillRandom(t, m, 2)
			before := snapshot(m)
			first := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(c.g, 0, 0), sbufAddr(c.g, 0, 0x2000), 4, isa.Events{})
			reg := s4(isa.OpCOPY, isa.DTypeFP32, 32, c.a, sbufAddr(c.g, 0, 0x1000), 4, isa.Events{})
			if vs := isa.Validate(reg, c.g); len(vs) > 0 {
				t.Fatalf("%v 0x%x: the validator refuses it already: %v", c.g, uint32(c.a), vs)
			}
			_, err := m.Run(prog(q(isa.EngineDVE, first, reg)))
			var pe *ProgramError
			if !errors.As(err, &pe) || len(pe.Errs) != 1 {
				t.Fatalf("%v 0x%x: want a pre-run error, got %v", c.g, uint32(c.a), err)
			}
			ie := pe.Errs[0]
			if ie.Rule != mem.RuleAddr4Immediate || ie.Index != 1 || !errors.Is(err, fault.ErrUnsupported) ||
				len(ie.Violations) != 1 || ie.Violations[0].Path != "src_mem_pattern.start_addr" {
				t.Errorf("%v 0x%x: %v", c.g, uint32(c.a), err)
			}
			if !bytes.Equal(before, snapshot(m)) {
				t.Errorf("%v: instruction 0 ran", c.g)
			}
		})
	}
}

// Semaphores are unsigned 32-bit (Provenance sim.semaphore_unsigned): SEM_DEC from 0 gives
// 0xFFFFFFFF, which satisfies WAIT_FOR_SEM_GT_IMM 5.
func TestSemaphoreCompareUnsigned(t *testing.T) {
	var log []string
	m := newLogMachine(t, &log)
	dec := copyInst(1, 1, isa.Events{UpdateMode: isa.SemDecRead, UpdateIdx: 3})
	gt := copyInst(2, 1, isa.Events{WaitMode: isa.WaitForSemGTImm, WaitIdx: 3, SemaphoreValue: 5})
	if _, err := m.Run(prog(q(isa.EngineDVE, dec), q(isa.EngineACT, gt))); err != nil {
		t.Fatal(err)
	}
	if m.Semaphore(3) != 0xFFFFFFFF || strings.Join(log, " ") != "DVE:COPY:1 ACT:COPY:2" {
		t.Errorf("sem[3] = 0x%x, ran %v", m.Semaphore(3), log)
	}
	if !hasProvenance("sim.semaphore_unsigned") {
		t.Error("Provenance lacks sim.semaphore_unsigned")
	}
}

func hasProvenance(id string) bool {
	for _, p := range Provenance() {
		if p.ID == id {
			return p.Reason != ""
		}
	}
	return false
}

// A DMA whose destination names bytes more than once across DMA engines (a job large enough
// for parallel workers) gives the same result on every run, also under -race: the job runs in
// job order and the walk's last element wins (Provenance sim.dma_dst_overlap), never as the
// host workers happen to finish.
func TestDMADstSelfOverlapDeterministic(t *testing.T) {
	g := isa.CAYMAN
	src := make([]byte, 4<<20)
	for i := range src {
		src[i] = byte(i*7 + i>>12)
	}
	// walk writes the source elements over the destination walk in walk order (the last wins).
	walk := func(out []byte, dstStep [2]int32, num [2]uint16, size int) []byte {
		for i1 := 0; i1 < int(num[1]); i1++ {
			for i0 := 0; i0 < int(num[0]); i0++ {
				e := i1*int(num[0]) + i0
				o := (i0*int(dstStep[0]) + i1*int(dstStep[1])) * size
				copy(out[o:o+size], src[e*size:(e+1)*size])
			}
		}
		return out
	}
	for _, c := range []struct {
		name             string
		dstStep          [2]int32
		dstNum           [2]uint16
		outLen           int
		srcStep          [2]int32
		srcNum           [2]uint16
		sizeSrc, sizeDst uint16
	}{
		{"rows onto one row", [2]int32{1, 0}, [2]uint16{1024, 4096}, 1024, [2]int32{1, 1024}, [2]uint16{1024, 4096}, 1, 1},
		{"every element onto one", [2]int32{0, 0}, [2]uint16{4096, 256}, 4, [2]int32{1, 4096}, [2]uint16{4096, 256}, 4, 4},
		// rows 1023 bytes apart: each row shares its last byte with the next row's first, so
		// the engines' blocks share one byte at each boundary
		{"rows sharing a byte", [2]int32{1, 1023}, [2]uint16{1024, 4096}, 4095*1023 + 1024, [2]int32{1, 1024}, [2]uint16{1024, 4096}, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16},
				SrcStepElem: c.srcStep, SrcNumElem: c.srcNum, SrcElemSize: c.sizeSrc,
				DstStartAddr: 1 << 30, DstStepElem: c.dstStep, DstNumElem: c.dstNum, DstElemSize: c.sizeDst,
				InDtype: isa.DTypeUINT8, OutDtype: isa.DTypeUINT8}
			want := walk(make([]byte, c.outLen), c.dstStep, c.dstNum, int(c.sizeDst))
			var first []byte
			for trial := 0; trial < 50; trial++ {
				m, _ := New(Config{Gen: g})
				m.dma.engines.Workers = 4
				if trial == 0 {
					if p, err := dge.PlanInst(g, in, m.chk.dge, dge.Options{Quiet: true}); err != nil || p.NumDMA < 2 {
						t.Fatalf("%s: the DMA is not spread over engines: %v", c.name, err)
					}
				}
				if err := m.Memory().WriteAt(0, src); err != nil {
					t.Fatal(err)
				}
				if _, err := m.Run(prog(q(isa.EngineTPB_SP, in))); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				out := make([]byte, c.outLen)
				m.Memory().ReadRaw(1<<30, out)
				if first == nil {
					first = out
				} else if !bytes.Equal(out, first) {
					t.Fatalf("%s: run %d differs from run 0", c.name, trial)
				}
				if !bytes.Equal(out, want) {
					t.Fatalf("%s: run %d did not write the walk's last elements", c.name, trial)
				}
				if m.dma.parallelJobs != 0 {
					t.Fatalf("%s: run %d moved the overlapping job on parallel workers", c.name, trial)
				}
			}
		})
	}
	if !hasProvenance("sim.dma_dst_overlap") {
		t.Error("Provenance lacks sim.dma_dst_overlap")
	}
}

// A DGE 16x128 crossbar transpose (a bf16 DMAMEMCPY from HBM whose source columns land in
// SBUF partitions) spreads its row tiles over the engines; every engine writes every partition,
// so the engines' byte ranges interleave without sharing a byte, and the job runs on parallel
// workers (a test of bounding ranges alone would serialise it).
func TestDMACrossbarTransposeRunsParallel(t *testing.T) {
	g := isa.CAYMAN
	const rows, cols = 8192, 128 // 2 MiB of bf16
	pstride := int32(g.Geometry().StateBufPartitionSize / 2)
	src := make([]byte, rows*cols*2)
	for i := range src {
		src[i] = byte(i*13 + i>>9)
	}
	in := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16},
		SrcStartAddr: 0x10000, SrcStepElem: [2]int32{1, cols}, SrcNumElem: [2]uint16{cols, rows}, SrcElemSize: 2,
		DstStartAddr: isa.LocalAddr8(0), DstStepElem: [2]int32{pstride, 1}, DstNumElem: [2]uint16{cols, rows}, DstElemSize: 2,
		InDtype: isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16}
	m, _ := New(Config{Gen: g})
	m.dma.engines.Workers = 4
	p, err := dge.PlanInst(g, in, m.chk.dge, dge.Options{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != dge.KindXbarTranspose || p.TileRows != 16 || p.TileCols != 128 || p.NumDMA < 2 || p.Job.Conflicts() {
		t.Fatalf("plan: %v, tile %dx%d on %d engines, conflicts %v", p.Kind, p.TileRows, p.TileCols, p.NumDMA, p.Job.Conflicts())
	}
	if err := m.Memory().WriteAt(0x10000, src); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(prog(q(isa.EngineTPB_SP, in))); err != nil {
		t.Fatal(err)
	}
	if m.dma.parallelJobs != 1 {
		t.Errorf("the transpose ran on one worker (%d parallel jobs)", m.dma.parallelJobs)
	}
	for c := 0; c < cols; c++ {
		got := m.Memory().Partition(mem.SBUF, c)[:rows*2]
		for r := 0; r < rows; r++ {
			if o := (r*cols + c) * 2; got[2*r] != src[o] || got[2*r+1] != src[o+1] {
				t.Fatalf("partition %d element %d = %x, want %x", c, r, got[2*r:2*r+2], src[o:o+2])
			}
		}
	}
}

// TestTensorShapeCannotWrap: a tensor shape whose byte count passes 2^64 is refused as too
// large (the product was bounded only after multiplying, so it could wrap below the bound).
func TestTensorShapeCannotWrap(t *testing.T) {
	m, err := New(Config{Gen: isa.CAYMAN})
	if err != nil {
		t.Fatal(err)
	}
	hbm := isa.Location{Space: isa.SpaceHBM}
	for _, shape := range [][]int{{1 << 62, 4}, {1 << 31, 1 << 31, 1 << 31}, {1 << 35}} {
		t.Run(fmt.Sprint(shape), func(t *testing.T) {
			if _, err := m.ReadTensor(hbm, shape, 4); err == nil || !strings.Contains(err.Error(), "too large") {
				t.Errorf("shape %v: %v, want too large", shape, err)
			}
		})
	}
}

// TestTensorPlacementHints: the two placements users get wrong are answered with the form they
// meant: a DMA device address of on-chip memory (the form dge takes) names the on-chip address,
// and a 1-D array too long for the partition axis says to reshape it to (1, N).
func TestTensorPlacementHints(t *testing.T) {
	m, err := New(Config{Gen: isa.CAYMAN})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at    isa.Location
		shape []int
		want  string
	}{
		{isa.Location{Space: isa.SpaceRaw, Offset: isa.DMALocalBase + 0x1000}, []int{1, 64},
			"is the DMA device address of on-chip byte 0x1000; tensors are placed by on-chip address: write sbuf:0:0x1000 or 0x1000"},
		{isa.Location{Space: isa.SpaceRaw, Offset: isa.DMALocalBase<<1 + 0x1000}, []int{1, 64}, "is not an on-chip address (at most 0x1fffffff"},
		{isa.Location{Space: isa.SpaceSBUF}, []int{1024}, "pass the last sbuf partition (127); the first axis is the partition axis, so a 1-D array takes one partition per element: reshape it to (1, 1024)"},
	} {
		t.Run(fmt.Sprintf("%v %v", c.at, c.shape), func(t *testing.T) {
			err := m.WriteTensor(c.at, c.shape, 4, make([]byte, 4*c.shape[len(c.shape)-1]))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v %v: %v, want ...%s...", c.at, c.shape, err, c.want)
			}
		})
	}
	if err := m.WriteTensor(isa.Location{Space: isa.SpaceSBUF}, []int{64, 2}, 4, make([]byte, 512)); err != nil {
		t.Errorf("a 2-D array that fits: %v", err)
	}
}
