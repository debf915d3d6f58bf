package dge

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// TestFeatureTables pins each generation's features to the seed's per-generation presence map,
// written out by hand (seed 003 §6.1, §6.5; FACTS §C.7, §F.3): "DGE Reshape:" logs 0/3/3/3,
// tensor_reshape_transpose 0/1/1/2, push REGWRITE 0/1/1/0, the fast-path strings 0/0/0/1,
// MAVERICK keeping only tensor_reshape_transpose_sb2sb.
func TestFeatureTables(t *testing.T) {
	for _, c := range []struct {
		gen  isa.Generation
		want Features
	}{
		{isa.SUNDA, Features{Backend: BackendNone}},
		{isa.CAYMAN, Features{ReshapeLogs: true, Backend: BackendPool, Xbar: true, GatherXpose: true, DMATranspose: true, Regwrite: true}},
		{isa.MARIANA, Features{ReshapeLogs: true, Backend: BackendPool, Xbar: true, GatherXpose: true, DMATranspose: true, Regwrite: true}},
		{isa.MARIANA_PLUS, Features{ReshapeLogs: true, Backend: BackendPool, Xbar: true, GatherXpose: true, DMATranspose: true, SB2SB: true, FastPath: true, Credits: true}},
		{isa.MAVERICK, Features{ReshapeLogs: true, Backend: BackendPool, Xbar: true, GatherXpose: true, DMATranspose: true, SB2SB: true}},
	} {
		t.Run(c.gen.String(), func(t *testing.T) {
			got, err := FeaturesOf(c.gen)
			c.want.Gen = c.gen
			if err != nil || got != c.want {
				t.Errorf("%+v (%v), want %+v", got, err, c.want)
			}
		})
	}
	if len(featureTables) != len(isa.Generations) {
		t.Errorf("%d feature tables for %d generations", len(featureTables), len(isa.Generations))
	}
}

// TestInvalidGenerationEverywhere: every dge and dma entry point that takes a generation refuses
// an invalid one (the zero value and one past MAVERICK) with a categorised, ruled error instead
// of planning or running as another generation.
func TestInvalidGenerationEverywhere(t *testing.T) {
	row := RowMajor(0x1000, 2, []int{4, 8})
	d := dma.Descriptor{Kind: dma.KindCopy, Num: [4]uint32{8, 1, 1, 1}, Src: dma.Side{Addr: 0x1000, ElemSize: 2, Step: [4]int64{1}},
		Dst: dma.Side{Addr: 0x9000, ElemSize: 2, Step: [4]int64{1}}, Sem: -1}
	for _, g := range []isa.Generation{isa.GenInvalid, isa.MAVERICK + 1} {
		for _, c := range []struct {
			name string
			rule string
			call func() error
		}{
			{"FeaturesOf", isa.RuleGeneration, func() error { _, err := FeaturesOf(g); return err }},
			{"PlanRequest", isa.RuleGeneration, func() error {
				_, err := PlanRequest(Request{Gen: g, Src: row, Dst: row}, Options{})
				return err
			}},
			{"PlanInst", isa.RuleGeneration, func() error { _, err := PlanInst(g, sampleInsts(isa.CAYMAN)[0], Config{}, Options{}); return err }},
			{"LayoutView", isa.RuleGeneration, func() error { _, err := LayoutView(0x1000, 2, []int{4, 8}, g); return err }},
			{"TensorRequest", isa.RuleGeneration, func() error {
				_, err := TensorRequest(g, 0x1000, 0x9000, []int{4, 8}, nil, isa.DTypeBFLOAT16)
				return err
			}},
			{"MicroOps", isa.RuleGeneration, func() error { _, err := MicroOps(&d, g, 0, 0); return err }},
			{"dma.Engines.Run", isa.RuleGeneration, func() error {
				_, err := dma.New(g).Run(dmatest.New(isa.CAYMAN), &dma.Job{Queues: [][]dma.Descriptor{{d}}, Sem: -1})
				return err
			}},
			{"dma.Engines.Check", isa.RuleGeneration, func() error {
				return dma.New(g).Check(dmatest.New(isa.CAYMAN), &dma.Job{Queues: [][]dma.Descriptor{{d}}, Sem: -1})
			}},
			{"dma.Engine.Step", isa.RuleGeneration, func() error {
				e := dma.NewEngine(g, 0)
				e.Push(d, 0, -1, 0)
				_, _, _, err := e.Step(dmatest.New(isa.CAYMAN), &dma.BoundRegs{})
				return err
			}},
		} {
			t.Run(g.String()+"/"+c.name, func(t *testing.T) {
				err := c.call()
				if !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != c.rule {
					t.Errorf("%v: want rule %s, fault.ErrInvalid", err, c.rule)
				}
			})
		}
	}
}
