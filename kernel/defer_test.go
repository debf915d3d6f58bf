package kernel

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// sameErr: b is the error a: the same type, message, rule, category and path (nil only for nil).
func sameErr(t *testing.T, what string, a, b error) {
	t.Helper()
	if (a == nil) != (b == nil) || a != nil && (reflect.TypeOf(a) != reflect.TypeOf(b) || a.Error() != b.Error() ||
		fault.Rule(a) != fault.Rule(b) || fault.Category(a) != fault.Category(b) || fault.Path(a) != fault.Path(b) || IsMalformed(a) != IsMalformed(b)) {
		t.Fatalf("%s: %T %v\nwant %T %v", what, b, b, a, a)
	}
}

// deferKernels are the kernels TestDeferCheck lowers both ways: random kernels with and without
// the preamble, FuzzLower's seeds and the kernels of a few hundred more of its inputs (refused
// ones among them, some by the check), with their inputs (nil: fuzzInputs).
func deferKernels() (ks []*Kernel, opts []Options, ins []map[int][]byte) {
	for seed := 0; seed < 24; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		k, in := randomKernel(r, 1+r.Intn(30), seed%2 == 0)
		ks, opts, ins = append(ks, k), append(opts, Options{Gen: isa.CAYMAN}), append(ins, in)
	}
	data := fuzzLowerSeeds()
	st := uint64(7)
	for i := 0; i < 250; i++ {
		in := make([]byte, 48)
		for j := range in {
			st = st*6364136223846793005 + 1442695040888963407
			if st>>60 < 5 {
				in[j] = byte(st >> 40)
			}
		}
		data = append(data, in)
	}
	for _, d := range data {
		k, opt := fuzzKernel(d)
		ks, opts, ins = append(ks, k), append(opts, opt), append(ins, nil)
	}
	return ks, opts, ins
}

// Options.DeferCheck changes where the check is made, not what comes of it: a kernel lowered
// with it lowers to the same program, runs to the same outputs and machine result (statistics,
// races, trace, end state), and a kernel Lower's check refuses is refused by the run with the
// same error. Exec is RunOn without the outputs: the same machine result, and the outputs are
// on the machine.
func TestDeferCheck(t *testing.T) {
	ks, opts, ins := deferKernels()
	refused, ran := 0, 0
	for i, k := range ks {
		opt := opts[i]
		lw, err := Lower(k, opt)
		dopt := opt
		dopt.DeferCheck = true
		dlw, derr := Lower(k, dopt)
		if derr != nil {
			sameErr(t, "Lower with DeferCheck", err, derr)
			continue
		}
		inputs := ins[i]
		if inputs == nil {
			inputs = fuzzInputs(dlw)
		}
		cfg := sim.Config{Trace: i%3 == 0, MaxElements: 1 << 20}
		dres, drunErr := dlw.Run(cfg, inputs)
		if err != nil {
			// refused by Lower's check: the deferred check refuses it with the same error
			sameErr(t, "the deferred check's refusal", err, drunErr)
			refused++
			continue
		}
		if lw.Text() != dlw.Text() {
			t.Fatalf("kernel %d: the programs differ:\n%s\n%s", i, lw.Text(), dlw.Text())
		}
		res, runErr := lw.Run(cfg, inputs)
		sameErr(t, "Run with DeferCheck", runErr, drunErr)
		if !reflect.DeepEqual(res, dres) {
			t.Fatalf("kernel %d: Run results differ with DeferCheck (%v)", i, runErr)
		}
		cfg.Gen = lw.Gen
		m, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sres, execErr := lw.Exec(m, inputs)
		sameErr(t, "Exec", runErr, execErr)
		if !reflect.DeepEqual(res.Sim, sres) {
			t.Fatalf("kernel %d: Exec's machine result differs from RunOn's", i)
		}
		if runErr != nil {
			continue
		}
		ran++
		for _, o := range res.Outputs {
			b := make([]byte, len(o.Data))
			if err := m.Memory().ReadRaw(lw.Placements[o.Tensor].Addr, b); err != nil || !bytes.Equal(b, o.Data) {
				t.Fatalf("kernel %d: output %s on the machine after Exec differs from RunOn's (%v)", i, o.Name, err)
			}
		}
	}
	t.Logf("%d kernels: %d ran to their end, %d refused by the check", len(ks), ran, refused)
	if refused == 0 || ran < 30 {
		t.Fatalf("%d kernels refused by the check, %d run: the test covers too little", refused, ran)
	}
}

// The check's refusals of TestErrorVocabulary, made by the run under DeferCheck: the same errors.
func TestDeferCheckRefusals(t *testing.T) {
	b, _, _ := loadComputeStore(32, 32, 32, 32, "float32", "float32", func(b *kb, x, y int) {
		b.call(Call{Op: OpDMACopy, Call: "nisa.dma_copy", Loc: "t.py:11", Dst: &View{Tensor: x, Offset: 32, Pattern: [][2]int64{{32, 16}, {1, 32}}},
			Src: &View{Tensor: x, Pattern: [][2]int64{{32, 16}, {1, 32}}}})
	})
	_, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
	if fault.Rule(err) != "dge_src_dst_disjoint" {
		t.Fatalf("Lower: %v", err)
	}
	lw, derr := Lower(&b.k, Options{Gen: isa.CAYMAN, DeferCheck: true})
	if derr != nil {
		t.Fatal(derr)
	}
	_, derr = lw.Run(sim.Config{}, map[int][]byte{0: make([]byte, 32*32*4)})
	sameErr(t, "overlapping DMA views", err, derr)

	in := &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpSTREAM_TRANSPOSE, InstWordLen: 16}, NumActiveChannels: 32}
	lw = &Lowered{Kernel: &newKB().k, Gen: isa.CAYMAN, Insts: []*Inst{{Engine: isa.EngineTPB_SP, Inst: in, Origin: "t.py:7 nisa.nc_transpose", did: -1}}}
	err = lw.selfCheck()
	var le *LoweringError
	if !errors.As(err, &le) {
		t.Fatalf("selfCheck: %v", err)
	}
	lw.deferred = true
	_, derr = lw.Run(sim.Config{}, nil)
	sameErr(t, "a lowered word refused", err, derr)
}
