package dge

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// TestErrorsAcrossLayers: an error made in dge, or in dma below it, reached through the layer
// that returns it (PlanRequest, PlanInst's instruction wrapper, a plan run on the engines),
// matches its fault category with errors.Is, its typed error with errors.As, and keeps its rule
// id and path (fault.Rule, fault.Path).
func TestErrorsAcrossLayers(t *testing.T) {
	g := isa.CAYMAN
	row := RowMajor(0x1000, 2, []int{4, 8})
	zero := row
	zero.NumElem[2] = 0
	bounded := Request{Gen: g, Src: row, Dst: RowMajor(0x9000, 2, []int{4, 8}), DstBound: isa.BoundCheckReg(0x80 | 5)}
	bad2D := &isa.DMADirect2D{SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: [2]int32{1, 8}, SrcNumElem: [2]uint16{8, 4}, SrcElemSize: 2,
		DstStartAddr: isa.Addr8(0x9000), DstStepElem: [2]int32{1, 8}, DstNumElem: [2]uint16{8, 3}, DstElemSize: 2}
	regAddr := &isa.DMADirect2D{SrcStartAddr: isa.Addr8(uint64(0x80)<<56 | 1), SrcNumElem: [2]uint16{1, 1}, SrcElemSize: 2,
		DstStartAddr: isa.Addr8(0x9000), DstNumElem: [2]uint16{1, 1}, DstElemSize: 2}
	for _, c := range []struct {
		name     string
		run      func() error
		category error
		as       any // a pointer to the typed error errors.As must find
		rule     string
		path     string
	}{
		{"request: a zero count", func() error {
			_, err := PlanRequest(Request{Gen: g, Src: zero, Dst: row}, Options{})
			return err
		}, fault.ErrInvalid, new(*Error), RuleViewValid, "src: num_elem[2]"},
		{"request: no generation", func() error {
			_, err := PlanRequest(Request{Src: row, Dst: row}, Options{})
			return err
		}, fault.ErrInvalid, new(*isa.GenerationError), isa.RuleGeneration, "generation"},
		{"instruction: counts differ, through the DIRECT2D wrapper", func() error {
			_, err := PlanInst(g, bad2D, Config{}, Options{})
			return err
		}, fault.ErrInvalid, new(*Error), RuleElementCounts, "dst: num_elem"},
		{"instruction: a register address", func() error {
			_, err := PlanInst(g, regAddr, Config{}, Options{})
			return err
		}, fault.ErrUnsupported, new(*Error), RuleAddrImmediate, "src_start_addr"},
		{"engines: a bound register, below the plan", func() error {
			p, err := PlanRequest(bounded, Options{Quiet: true})
			if err != nil {
				return err
			}
			e := dma.New(g)
			e.Regs[5] = 16
			_, err = e.Run(dmatest.New(g), &p.Job)
			return err
		}, fault.ErrBounds, new(*dma.BoundsError), dma.RuleBoundsCheck, "descriptor[0]: dst_bound_reg"},
		{"engines: a malformed descriptor", func() error {
			p, err := PlanRequest(bounded, Options{Quiet: true})
			if err != nil {
				return err
			}
			p.Job.Queues[0][0].Num[1] = 0
			_, err = dma.New(g).Run(dmatest.New(g), &p.Job)
			return err
		}, fault.ErrInvalid, new(*dma.DescriptorError), dma.RuleDescriptorValid, "descriptor[0]: num_elem[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, c.category) || fault.Category(err) != c.category {
				t.Errorf("%v: category %v, want %v", err, fault.Category(err), c.category)
			}
			if !errors.As(err, c.as) {
				t.Errorf("%v: errors.As finds no %T", err, c.as)
			}
			if r := fault.Rule(err); r != c.rule {
				t.Errorf("%v: rule %q, want %q", err, r, c.rule)
			}
			if p := fault.Path(err); p != c.path {
				t.Errorf("%v: path %q, want %q", err, p, c.path)
			}
		})
	}
}

// TestErrorText: the message keeps the words the CLI has always printed for each category, and
// the broken rule reads as every layer prints it (fault.Violation.String: rule, path, value,
// legal, why).
func TestErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{reqErr(RulePermValid, "perm", "perm %v", []int{0, 0}), "dge: invalid request: rule dge_perm_valid: perm: perm [0 0]"},
		{unsupErr(RulePlanNests, "num_elem", "too many"), "dge: unsupported on this generation: rule dge_plan_nests: num_elem: too many"},
		{&Error{Rule: RuleViewValid, Err: fault.ErrInvalid, Msg: "m"}, "dge: invalid request: rule dge_view_valid: m"},
		{isaError(isa.Violation{Rule: "has_valid_dtype", Field: "in_dtype", Value: "0x1f", Legal: "a DMA dtype", Offset: 3}, ""),
			"dge: invalid request: rule has_valid_dtype: in_dtype = 0x1f, legal: a DMA dtype"},
	} {
		t.Run(c.want, func(t *testing.T) {
			if c.err.Error() != c.want {
				t.Errorf("%q, want %q", c.err.Error(), c.want)
			}
		})
	}
}
