package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/timing"
)

// The public figures of shared/spec/TIMING.md, each reproduced by the model.

// loadRows is a DMAMEMCPY of rows x cols elements of es bytes from HBM (row-major) into SBUF,
// row r into partition r, with the completion semaphore sem bumped by inc in total.
func loadRows(g isa.Generation, rows, cols uint16, es uint16, dt isa.DType, sem, inc uint8, ev isa.Events) *isa.DMADirect2D {
	stride := int32(g.Geometry().StateBufPartitionSize / uint32(es))
	return &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16}, Events: ev,
		Semaphore: sem, SemIncrement: inc,
		SrcStartAddr: isa.Addr8(1 << 30), SrcStepElem: [2]int32{1, int32(cols)}, SrcNumElem: [2]uint16{cols, rows}, SrcElemSize: es,
		DstStartAddr: isa.LocalAddr8(0), DstStepElem: [2]int32{1, stride}, DstNumElem: [2]uint16{cols, rows}, DstElemSize: es,
		InDtype: dt, OutDtype: dt}
}

func runTimed(t *testing.T, cfg Config, p *Program) *Result {
	t.Helper()
	cfg.Trace = true
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range p.Queues {
		for _, in := range q.Insts {
			if vs := isa.Validate(in.Inst, cfg.Gen); len(vs) > 0 {
				t.Fatalf("test instruction invalid: %v", vs)
			}
		}
	}
	res, err := m.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// dmaSpan is the first descriptor start and the last descriptor end of a run, per DMA track.
func dmaSpan(res *Result) (first, last int64, perEngine map[int]uint64) {
	first, perEngine = math.MaxInt64, map[int]uint64{}
	for _, e := range res.Trace.Events() {
		if e.Cat == "DMA" {
			first, last = min(first, e.TsPS), max(last, e.TsPS+e.DurPS)
			perEngine[e.Tid] += e.Args["bytes"].(uint64)
		}
	}
	return first, last, perEngine
}

// A [4, 4096] bf16 HBM -> SBUF load on CAYMAN is carried by one DMA engine in 1416 ns (+-10%);
// the consumer waits for 16 completion increments (every engine reports).
func TestFigureLoad4x4096OneEngine(t *testing.T) {
	g := isa.CAYMAN
	ld := loadRows(g, 4, 4096, 2, isa.DTypeBFLOAT16, 1, 16, isa.Events{})
	res := runTimed(t, Config{Gen: g}, prog(q(isa.EngineTPB_SP, ld)))
	first, last, per := dmaSpan(res)
	if len(per) != 1 || per[0] != 32768 {
		t.Errorf("bytes per DMA track %v, want all 32768 on DMA0 (4 partitions, one engine's group of 8)", per)
	}
	if ns := float64(last-first) / 1000; math.Abs(ns-1416)/1416 > 0.10 {
		t.Errorf("DMA0 carries the load in %.0f ns, want 1416 +-10%%", ns)
	}
	if res.Semaphores[1] != 16 {
		t.Errorf("sem[1] = %d after the load, want the 16 increments of the 16 engines", res.Semaphores[1])
	}
	// The 15 engines without data write their update at once; a consumer must wait for all 16:
	// waiting for 15 (on bytes the load does not touch) starts before the data is in.
	for _, c := range []struct {
		count    uint32
		afterEnd bool
	}{{16, true}, {15, false}} {
		t.Run(fmt.Sprintf("wait for %d", c.count), func(t *testing.T) {
			cp := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0x10000), sbufAddr(g, 0, 0x11000), 32, waitGE(1, c.count))
			res := runTimed(t, Config{Gen: g}, prog(q(isa.EngineTPB_SP, ld), q(isa.EngineDVE, cp)))
			_, last, _ := dmaSpan(res)
			var start int64
			for _, e := range res.Trace.Events() {
				if e.Cat == "DVE" && e.Args["opcode"] != nil {
					start = e.TsPS
				}
			}
			if got := start >= last+1_300_000; got != c.afterEnd {
				t.Errorf("a wait for %d increments starts at %d ps; the load's data ends at %d ps", c.count, start, last)
			}
		})
	}
}

// Achieved DMA bandwidth by bytes per partition: < 256 B a small fraction of peak, rising, and
// >= 4 KiB at least 90% of 16 engines x 17 / 23 / 33 B/ns.
func TestFigureBandwidthCurve(t *testing.T) {
	for _, gc := range []struct {
		g    isa.Generation
		peak float64
	}{{isa.SUNDA, 17}, {isa.CAYMAN, 23}, {isa.MARIANA, 33}} {
		t.Run(gc.g.String(), func(t *testing.T) {
			prev := 0.0
			for _, b := range []uint16{64, 128, 256, 512, 1024, 2048, 4096, 8192} {
				ld := loadRows(gc.g, 128, b/4, 4, isa.DTypeFP32, 1, 16, isa.Events{})
				s := runTimed(t, Config{Gen: gc.g}, prog(q(isa.EngineTPB_SP, ld))).Summary()
				frac := s.DMA.BytesPerNs / (16 * gc.peak)
				if s.DMA.PeakBytesPerNs != 16*gc.peak {
					t.Fatalf("peak %v, want %v", s.DMA.PeakBytesPerNs, 16*gc.peak)
				}
				t.Logf("%5d B per partition: %.1f B/ns, %.0f%% of peak", b, s.DMA.BytesPerNs, 100*frac)
				switch {
				case b < 256 && frac > 0.3:
					t.Errorf("%d B per partition at %.0f%% of peak: want a small fraction", b, 100*frac)
				case b >= 4096 && frac < 0.9:
					t.Errorf("%d B per partition at %.0f%% of peak: want >= 90%%", b, 100*frac)
				case frac <= prev:
					t.Errorf("%d B per partition at %.0f%%, not above the smaller payload's %.0f%%", b, 100*frac, 100*prev)
				}
				prev = frac
			}
		})
	}
}

// A DMA transpose runs at ~90% (HBM -> SBUF) and ~50% (SBUF -> SBUF) of the copy throughput of
// the same bytes (8 KiB per partition, where the copy is saturated).
func TestFigureDMATranspose(t *testing.T) {
	g := isa.CAYMAN
	stride := int64(g.Geometry().StateBufPartitionSize / 2)
	const rows = 4096 // source rows of 128 bf16: the destination holds 8 KiB per partition
	sb := func(off uint64) uint64 { return isa.DMALocalBase + off }
	timeOf := func(r dge.Request) (float64, dma.Kind) {
		r.Gen = g
		p, err := dge.PlanRequest(r, dge.Options{Quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		// throughput per engine-time, so the two plans' balance over the engines does not count
		e := dma.New(g)
		res := e.Schedule(&p.Job)
		var busy int64
		for _, rec := range res.Records {
			busy += rec.End - rec.Start
		}
		return float64(busy), p.Job.Queues[0][0].Kind
	}
	dst := dge.View{Base: sb(0), ElemSize: 2, NumElem: [4]uint32{rows, 128, 1, 1}, StepElem: [4]int64{1, stride}}
	copyNs, k := timeOf(dge.Request{Src: dge.View{Base: 0, ElemSize: 2, NumElem: [4]uint32{rows, 128, 1, 1}, StepElem: [4]int64{1, rows}}, Dst: dst})
	if k != dma.KindCopy {
		t.Fatalf("copy planned as %v", k)
	}
	for _, c := range []struct {
		name string
		src  uint64
		want float64
	}{{"HBM->SBUF", 0, 0.9}, {"SBUF->SBUF", sb(uint64(rows * 2)), 0.5}} {
		t.Run(c.name, func(t *testing.T) {
			src := dge.View{Base: c.src, ElemSize: 2, NumElem: [4]uint32{128, rows, 1, 1}, StepElem: [4]int64{1, 128}}
			if c.src >= isa.DMALocalBase {
				src = dge.View{Base: c.src, ElemSize: 2, NumElem: [4]uint32{128, rows / 128, 128, 1}, StepElem: [4]int64{1, 128, stride}}
				src.NumElem = [4]uint32{128, 32, 128, 1}
			}
			xNs, k := timeOf(dge.Request{Src: src, Dst: dst, Perm: permFor(src)})
			if k != dma.KindXbar {
				t.Fatalf("%s: transpose planned as %v", c.name, k)
			}
			got := copyNs / xNs
			t.Logf("%s: transpose %.0f ns, copy %.0f ns: %.0f%% of the copy throughput", c.name, xNs, copyNs, 100*got)
			if math.Abs(got-c.want) > 0.06 {
				t.Errorf("%s transpose at %.0f%% of the copy throughput, want ~%.0f%%", c.name, 100*got, 100*c.want)
			}
		})
	}
}

func permFor(v dge.View) []int {
	if v.NumElem[2] > 1 {
		return []int{1, 2, 0}
	}
	return []int{1, 0}
}

// Vector Engine instruction costs follow the documented formulas at each generation's clock.
func TestFigureVectorEngineFormulas(t *testing.T) {
	const n = 4096
	type tc struct {
		name string
		in   *isa.S4D4TR
		// cycles on SUNDA, CAYMAN, MARIANA
		want [3]float64
	}
	g := isa.CAYMAN
	sb := func(off uint32) isa.Addr4 { return sbufAddr(g, 0, off) }
	mk := func(op isa.Opcode, in, out isa.DType, n uint16, step int16) *isa.S4D4TR {
		x := s4(op, in, 128, sb(0), sb(0x10000), n, isa.Events{})
		x.OutDtype = out
		x.SrcMemPattern.StepElem[0] = step
		return x
	}
	red := mk(isa.OpTENSOR_REDUCE_ARITH_OP, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, n, 1)
	red.Op, red.OpDim = isa.ALUAdd, isa.SubdimX
	red.DstMemPattern.NumElem = [4]uint16{1, 1, 1, 1}
	redF := mk(isa.OpTENSOR_REDUCE_ARITH_OP, isa.DTypeFP32, isa.DTypeFP32, n, 1)
	redF.Op, redF.OpDim = isa.ALUAdd, isa.SubdimX
	redF.DstMemPattern.NumElem = [4]uint16{1, 1, 1, 1}
	cases := []tc{
		{"reciprocal max(64, 8N)", mk(isa.OpRECIPROCAL, isa.DTypeFP32, isa.DTypeFP32, n, 1), [3]float64{8 * n, 8 * n, 8 * n}},
		{"transpose max(64, N)", mk(isa.OpSTREAM_TRANSPOSE, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, n, 1), [3]float64{n, n, n}},
		{"shuffle max(64, N)", mk(isa.OpSTREAM_SHUFFLE, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, n, 1), [3]float64{n, n, n}},
		{"copy bf16, perf mode 4x from NC-v3", mk(isa.OpCOPY, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, n, 1), [3]float64{n, n / 4, n / 4}},
		{"copy fp32, 256-wide 2x from NC-v3", mk(isa.OpCOPY, isa.DTypeFP32, isa.DTypeFP32, n, 1), [3]float64{n, n / 2, n / 2}},
		{"cast fp8 -> bf16, 4x only on NC-v4", mk(isa.OpCAST, isa.DTypeFP8_EXP4, isa.DTypeBFLOAT16, n, 1), [3]float64{n, n / 2, n / 4}},
		{"copy fp32 with a 32 B stride: half rate, no perf mode", mk(isa.OpCOPY, isa.DTypeFP32, isa.DTypeFP32, n/8, 8), [3]float64{n / 4, n / 4, n / 4}},
		{"copy fp32 with a 16 B stride: full rate", mk(isa.OpCOPY, isa.DTypeFP32, isa.DTypeFP32, n/4, 4), [3]float64{n / 4, n / 4, n / 4}},
		{"reduce bf16 add N/2", red, [3]float64{n / 2, n / 2, n / 2}},
		{"reduce fp32 add N", redF, [3]float64{n, n, n}},
		{"tiny: MIN_II + 100 static", mk(isa.OpSTREAM_TRANSPOSE, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, 32, 1), [3]float64{164, 164, 164}},
	}
	clocks := map[isa.Generation]float64{isa.SUNDA: 1.12, isa.CAYMAN: 0.96, isa.MARIANA: 1.2}
	for i, gen := range []isa.Generation{isa.SUNDA, isa.CAYMAN, isa.MARIANA} {
		tt := timing.Default(gen)
		for _, c := range cases {
			t.Run(gen.String()+"/"+c.name, func(t *testing.T) {
				if got := computeCycles(&tt, isa.EngineDVE, c.in, false); got != c.want[i] {
					t.Errorf("%v cycles, want %v", got, c.want[i])
				}
				occ, _ := computeCost(&tt, isa.EngineDVE, c.in, false)
				if want := int64(c.want[i]/clocks[gen]*1000 + 0.5); occ != want {
					t.Errorf("%d ps at %v GHz, want %d", occ, clocks[gen], want)
				}
			})
		}
	}
	// ACT's reciprocal is max(MIN_II, N); a dependent instruction adds the static overhead.
	tt := timing.Default(g)
	rc := mk(isa.OpRECIPROCAL, isa.DTypeFP32, isa.DTypeFP32, n, 1)
	if got := computeCycles(&tt, isa.EngineACT, rc, false); got != n {
		t.Errorf("ACT reciprocal %v cycles, want %d", got, n)
	}
	if got := computeCycles(&tt, isa.EngineDVE, rc, true); got != 8*n+100 {
		t.Errorf("dependent reciprocal %v cycles, want %d", got, 8*n+100)
	}
}

// ~600 ns per hardware-DGE DMA instruction on its issuing queue; ~1300 ns from a DMA's
// completion semaphore to the start of the engine waiting on it.
func TestFigureDGEIssueAndSemToStart(t *testing.T) {
	g := isa.CAYMAN
	ld := loadRows(g, 8, 256, 4, isa.DTypeFP32, 3, 1, isa.Events{})
	ld2 := loadRows(g, 8, 256, 4, isa.DTypeFP32, 4, 1, isa.Events{})
	ld2.DstStartAddr = isa.LocalAddr8(0x8000)
	ld2.SrcStartAddr = isa.Addr8(2 << 30)
	tr := s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x4000), 32, waitGE(3, 1))
	res := runTimed(t, Config{Gen: g}, prog(q(isa.EngineTPB_SP, ld, ld2), q(isa.EngineDVE, tr)))
	var sp []int64
	var dveStart, dveDur int64 = -1, -1
	for _, e := range res.Trace.Events() {
		if e.Args["opcode"] == nil {
			continue // wait slices, markers
		}
		switch e.Cat {
		case "SP":
			sp = append(sp, e.TsPS, e.DurPS)
		case "DVE":
			dveStart, dveDur = e.TsPS, e.DurPS
		}
	}
	// the trace's times are the model's: the transpose's slice is its formula (a dependent
	// 32-element transpose: MIN_II + the static overhead) at CAYMAN's 0.96 GHz
	if tt := timing.Default(g); dveDur != tt.CyclesPS(isa.EngineDVE, 164) {
		t.Errorf("DVE slice %d ps, want %d", dveDur, tt.CyclesPS(isa.EngineDVE, 164))
	}
	if len(sp) != 4 || sp[1] != 600_000 || sp[2] != 600_000 {
		t.Errorf("SP slices (start, duration) %v, want two of 600 ns back to back", sp)
	}
	// the first load's descriptors (DMA0, partitions 0-7) end; the DVE starts 1300 ns later
	var firstEnd int64
	for _, e := range res.Trace.Events() {
		if e.Cat == "DMA" && e.TsPS < 1_200_000 {
			firstEnd = max(firstEnd, e.TsPS+e.DurPS)
			if e.TsPS < 600_000 {
				t.Errorf("a descriptor starts at %d ps, before its instruction's 600 ns issue", e.TsPS)
			}
		}
	}
	if got := dveStart - firstEnd; got != 1_300_000 {
		t.Errorf("DVE starts %d ps after the load's last descriptor, want 1300 ns", got)
	}
	s := res.Summary()
	if s.EndNs*1000 != float64(res.EndPS) || len(s.CriticalPath) < 3 {
		t.Fatalf("summary %+v", s)
	}
	// the critical path ends with the transpose, which waited for sem[3] set by a descriptor,
	// which the SP's DMA issued
	cp := s.CriticalPath
	if l := cp[len(cp)-1]; l.Engine != "DVE" || l.Via != "sem[3]" || l.LatencyNs != 1300 {
		t.Errorf("critical path %+v", cp)
	}
	if cp[0].Engine != "SP" || cp[0].Via != "start" || cp[1].Via != "issue" {
		t.Errorf("critical path %+v", cp)
	}
}

// Functional results never depend on the model: the same bytes under every generation's table
// and under randomly perturbed tables; the times do change.
func TestTimingNeverChangesResults(t *testing.T) {
	g := isa.CAYMAN
	build := func() *Program {
		ld := loadRows(g, 64, 64, 4, isa.DTypeFP32, 4, 4, isa.Events{})
		cast := s4(isa.OpCAST, isa.DTypeFP32, 64, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x400), 64, waitGE(4, 4))
		cast.OutDtype = isa.DTypeBFLOAT16
		cast.Events.UpdateMode, cast.Events.UpdateIdx = isa.SemIncComplete, 1
		tr := s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeBFLOAT16, 64, sbufAddr(g, 0, 0x400), sbufAddr(g, 0, 0x800), 64, waitGE(1, 1))
		tr.Events.UpdateMode, tr.Events.UpdateIdx = isa.SemIncComplete, 2
		up := s4(isa.OpCAST, isa.DTypeBFLOAT16, 64, sbufAddr(g, 0, 0x800), sbufAddr(g, 0, 0xc00), 64, waitGE(2, 1))
		up.OutDtype = isa.DTypeFP32
		up.Events.UpdateMode, up.Events.UpdateIdx = isa.SemIncComplete, 3
		rc := s4(isa.OpRECIPROCAL, isa.DTypeFP32, 64, sbufAddr(g, 0, 0xc00), sbufAddr(g, 0, 0x1000), 64, waitGE(3, 1))
		return prog(q(isa.EngineTPB_SP, ld), q(isa.EnginePOOL, cast), q(isa.EngineDVE, tr, rc), q(isa.EngineACT, up))
	}
	var want []byte
	var wantEnd int64
	tables := []timing.Table{}
	for _, gen := range isa.Generations {
		tables = append(tables, timing.Default(gen))
	}
	r := rand.New(rand.NewPCG(13, 13))
	for i := 0; i < 8; i++ {
		tt := timing.Default(g)
		for _, k := range timing.Keys {
			v := k.Value(&tt) * (0.25 + 4*r.Float64())
			if err := tt.Apply("perturbed", jsonOf(k.Name, v)); err != nil {
				t.Fatal(err)
			}
		}
		tables = append(tables, tt)
	}
	ends := map[int64]bool{}
	for i, tt := range tables {
		m, err := New(Config{Gen: g, Timing: &tt})
		if err != nil {
			t.Fatal(err)
		}
		fillRandom(t, m, 7)
		res, err := m.Run(build())
		if err != nil {
			t.Fatalf("table %d: %v", i, err)
		}
		got := snapshot(m)
		ends[res.EndPS] = true
		if i == 0 {
			want, wantEnd = got, res.EndPS
			continue
		}
		if string(got) != string(want) {
			t.Fatalf("table %d (%v): memory differs from the SUNDA table's run", i, tt.Gen)
		}
	}
	if len(ends) < len(tables)/2 || wantEnd == 0 {
		t.Errorf("end times %v: the tables should change them", ends)
	}
}

func jsonOf(key string, v float64) *strings.Reader {
	return strings.NewReader(fmt.Sprintf("{%q: %v}", key, v))
}

// The bottleneck line names what the critical path spends its time on.
func TestSummaryBottleneck(t *testing.T) {
	g := isa.CAYMAN
	var sp []isa.Inst
	for i := 0; i < 8; i++ {
		ld := loadRows(g, 128, 2048, 4, isa.DTypeFP32, 1, 16, isa.Events{})
		ld.DstStartAddr = isa.LocalAddr8(uint32(i * 0x2000))
		sp = append(sp, ld)
	}
	var dve []isa.Inst
	for i := 0; i < 8; i++ {
		dve = append(dve, s4(isa.OpRECIPROCAL, isa.DTypeFP32, 128, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x8000), 4096, isa.Events{}))
	}
	for _, c := range []struct {
		name string
		p    *Program
		want string
	}{
		{"DMA", prog(q(isa.EngineTPB_SP, sp...)), "DMA-bound: the DMA engines are busy"},
		{"DVE", prog(q(isa.EngineDVE, dve...)), "DVE-bound: the DVE is busy 100% of the run"},
		{"latency", prog(q(isa.EngineTPB_SP, loadRows(g, 4, 16, 4, isa.DTypeFP32, 1, 1, isa.Events{})),
			q(isa.EngineDVE, s4(isa.OpCOPY, isa.DTypeFP32, 4, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x100), 16, waitGE(1, 1)))), "latency-bound"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := runTimed(t, Config{Gen: g}, c.p).Summary()
			if !strings.HasPrefix(s.Bottleneck, c.want) {
				t.Errorf("bottleneck %q, want %q...; path share %v", s.Bottleneck, c.want, s.PathShare)
			}
			var total float64
			for _, v := range s.PathShare {
				total += v
			}
			if math.Abs(total-s.EndNs) > 1 {
				t.Errorf("the critical path's shares add to %v ns, the run ends at %v", total, s.EndNs)
			}
		})
	}
}
