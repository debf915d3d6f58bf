package demo

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// The reference must be independent of the executors: a few of its values worked out by hand.
func TestReferenceByHand(t *testing.T) {
	r, err := NewReference()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want uint16
	}{
		{"X[1][1] = 1 + 1/64 is exact in bf16", r.B[1][1], 0x3F82},
		{"X[33][1] = 33.015625 rounds to 33.0", r.B[33][1], 0x4204},
		{"T[0][5] = B[5][0] = bf16(5.0)", r.T[0][5], 0x40A0},
		{"T[33][34] = B[32+2][32+1] = bf16(34 + 33/64)", r.T[33][34], bf16(34 + 33.0/64)},
		{"S[0] = T[3] (mask entry 0 is 3)", r.S[0][9], r.T[3][9]},
		{"S[7] is untouched (mask entry 7 is 0xFF)", r.S[7][0], Sentinel},
		{"tag transposed: TagT[2][1] = tag (1, 2)", r.TagT[2][1], 1<<8 | 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("0x%04x, want 0x%04x", c.got, c.want)
			}
		})
	}
	// R[c][k] sums the 32 bf16 values of S^T's row c, tile k: row 0, tile 0 is S[0..31][0].
	var acc float32
	for i := 0; i < 32; i++ {
		acc += r.F[i][0]
	}
	if r.R[0][0] != acc {
		t.Errorf("R[0][0] = %v, want %v", r.R[0][0], acc)
	}
}

// The program's lane map is the one the reference uses, and every instruction is a step.
func TestProgramMask(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			d, err := New(g)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, q := range d.Program.Queues {
				for _, in := range q.Insts {
					if l, ok := in.Inst.(*isa.LoadMaskSelect); ok {
						found = true
						if l.Immediate != Mask() {
							t.Errorf("program mask %v, reference mask %v", l.Immediate, Mask())
						}
					}
				}
			}
			if !found || len(d.Steps) != d.Program.Len() {
				t.Errorf("found=%v steps=%d len=%d", found, len(d.Steps), d.Program.Len())
			}
		})
	}
}

// The demo verifies on every generation; a result changed after the run is caught at its first
// differing element, as a *VerifyError of rule demo.results_match.
func TestRunAndVerify(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			d, err := New(g)
			if err != nil {
				t.Fatal(err)
			}
			res, err := d.Run(sim.Config{CheckUninit: true})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, c := range res.Checks {
				if !c.OK {
					t.Errorf("%s: %s", c.Name, c.Status())
				}
			}
		})
	}
	d, _ := New(isa.CAYMAN)
	m, _ := sim.New(sim.Config{Gen: isa.CAYMAN})
	if err := Load(m); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RunOn(m); err != nil {
		t.Fatal(err)
	}
	// channel 3, element 5 of the transposed result
	m.WriteTensor(isa.Location{Space: isa.SpaceSBUF, Partition: 3, Offset: OffT + 2*5}, []int{1, 1}, 2, []byte{0xAA, 0xAA})
	ref, _ := NewReference()
	checks, err := Verify(m, ref)
	var ve *VerifyError
	if !errors.As(err, &ve) || len(ve.Bad) != 1 || fault.Rule(err) != RuleResultsMatch || !errors.Is(err, fault.ErrInvalid) {
		t.Fatalf("Verify: %v", err)
	}
	if b := ve.Bad[0]; b.Name != "STREAM_TRANSPOSE bf16" || b.Channel != 3 || b.Element != 5 || len(checks) != 8 {
		t.Errorf("bad %+v of %d checks", b, len(checks))
	}
	if p := fault.Path(fmt.Errorf("demo: %w", err)); p != "STREAM_TRANSPOSE bf16: channel[3].element[5]" {
		t.Errorf("path %q", p)
	}
}

// The exported files read back as the arrays the machine is loaded with.
func TestFiles(t *testing.T) {
	files, err := Files(isa.MAVERICK)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{"x.npy": {64, 64}, "tags.npy": {64, 64}, "sentinel.npy": {64, 64}, "ones.npy": {64, 64},
		"expect_transposed.npy": {64, 64}, "expect_reduced.npy": {64, 2}}
	for _, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			if f.Name == "demo.tpb" {
				if !bytes.Contains(f.Data, []byte(".gen MAVERICK")) {
					t.Error("program lacks its .gen line")
				}
				return
			}
			a, err := npy.Read(bytes.NewReader(f.Data))
			if err != nil || len(a.Shape) != 2 || a.Shape[0] != want[f.Name][0] || a.Shape[1] != want[f.Name][1] {
				t.Errorf("%v, shape %v", err, a)
			}
		})
	}
	if len(files) != 7 {
		t.Errorf("%d files", len(files))
	}
}

// The tile map reads tags only from the bytes given: short tiles print '?', never panic.
func TestWriteTileMapShort(t *testing.T) {
	var b bytes.Buffer
	WriteTileMap(&b, [2]string{"a", "b"}, [2][]byte{nil, {1}})
	if !bytes.Contains(b.Bytes(), []byte("c=31 ????")) {
		t.Errorf("%s", b.String())
	}
}

// An invalid generation is isa's *GenerationError from every entry point, never a program with
// no partition stride.
func TestInvalidGeneration(t *testing.T) {
	for _, g := range []isa.Generation{isa.GenInvalid, isa.MAVERICK + 1} {
		_, e1 := Source(g)
		_, e2 := New(g)
		_, e3 := Files(g)
		for i, err := range []error{e1, e2, e3} {
			var ge *isa.GenerationError
			if !errors.As(err, &ge) || fault.Rule(err) != isa.RuleGeneration {
				t.Errorf("%v: entry %d: %v", g, i, err)
			}
		}
	}
}
