package sim

import (
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// BenchmarkTimingOverhead measures what the timing model's bookkeeping (the timeline the
// summary's critical path needs, and the summary itself) adds to a run: "model" against "off",
// the same run, with the same schedule, recording no timeline and making no summary
// (Machine.timelineOff). The cost formulas and the DMA placement run in both: any run needs
// times to order its engines; their own share is read from a CPU profile (BENCHMARKS.md).
// The budget for the whole timing model is 20% of an untimed run.
func BenchmarkTimingOverhead(b *testing.B) {
	g := isa.CAYMAN
	// 40,000 small instructions on four queues: the instruction-bound case, where per-instruction
	// bookkeeping shows most
	small := func() *Program {
		var dve, pool, act, sp []isa.Inst
		for i := 0; i < 12000; i++ {
			dve = append(dve, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 32, isa.Events{}))
			pool = append(pool, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 32, 0), sbufAddr(g, 32, 0x1000), 32, isa.Events{}))
			act = append(act, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 64, 0), sbufAddr(g, 64, 0x1000), 32, isa.Events{}))
		}
		for i := 0; i < 4000; i++ {
			ld := loadRows(g, 8, 64, 4, isa.DTypeFP32, 9, 1, isa.Events{})
			ld.DstStartAddr = isa.LocalAddr8(uint32(96*g.Geometry().StateBufPartitionSize + 0x4000))
			sp = append(sp, ld)
		}
		return prog(q(isa.EngineDVE, dve...), q(isa.EnginePOOL, pool...), q(isa.EngineACT, act...), q(isa.EngineTPB_SP, sp...))
	}()
	// a few large transfers and transposes: the data-bound case
	large := func() *Program {
		var sp, dve []isa.Inst
		for i := 0; i < 8; i++ {
			sp = append(sp, loadRows(g, 128, 2048, 4, isa.DTypeFP32, 9, 16, isa.Events{}))
			dve = append(dve, s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeFP32, 128, sbufAddr(g, 0, 0x10000), sbufAddr(g, 0, 0x20000), 4096, isa.Events{}))
		}
		return prog(q(isa.EngineTPB_SP, sp...), q(isa.EngineDVE, dve...))
	}()
	for _, c := range []struct {
		name string
		p    *Program
	}{{"40000-small", small}, {"large", large}} {
		for _, off := range []bool{false, true} {
			name := c.name + "/model"
			if off {
				name = c.name + "/off"
			}
			b.Run(name, func(b *testing.B) {
				m, err := New(Config{Gen: g, Races: RacesOff})
				if err != nil {
					b.Fatal(err)
				}
				m.timelineOff = off
				b.ReportAllocs()
				for b.Loop() {
					m.Reset()
					res, err := m.Run(c.p)
					if err != nil {
						b.Fatal(err)
					}
					if !off {
						_ = res.Summary()
					}
				}
			})
		}
	}
}
