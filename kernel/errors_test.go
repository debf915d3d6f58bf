package kernel

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// Every refusal of the kernel layer unwraps to exactly one of fault's categories, names its rule
// (fault.Rule) and where it is (fault.Path: file:line, call, argument), and is found by errors.Is
// and errors.As through the layers above (a command's fmt.Errorf, a fault.Wrap).
func TestErrorVocabulary(t *testing.T) {
	copyKernel := func(edit func(b *kb)) func() error {
		return func() error {
			b, _, _ := loadComputeStore(32, 32, 32, 32, "float32", "float32", func(b *kb, x, y int) {
				b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Loc: "t.py:11", Dst: full(y, []int{32, 32}), Src: full(x, []int{32, 32})})
			})
			edit(b)
			_, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
			return err
		}
	}
	for _, tc := range []struct {
		name      string
		err       func() error
		cat       error
		malformed bool
		rule      string
		path      string // a part of fault.Path of the error
		msg       string // a piece of the message
	}{
		{"JSON cut short", func() error { _, err := Parse([]byte("{\"format\": \"tpbsim.kernel\",\n \"tensors\": [")); return err },
			fault.ErrInvalid, true, "kernel.form.json", "", "line 2 (byte 41): unexpected EOF"},
		{"empty input", func() error { _, err := Parse([]byte(" \n")); return err },
			fault.ErrInvalid, true, "kernel.form.json", "", "line 2 (byte 2): unexpected EOF: no kernel object"},
		{"syntax error", func() error { _, err := Parse([]byte("{\n\"format\" \"x\"}")); return err },
			fault.ErrInvalid, true, "kernel.form.json", "", "line 2 (byte 12): invalid character"},
		{"key twice", func() error { _, err := Parse([]byte(`{"name":"a","name":"b"}`)); return err },
			fault.ErrInvalid, true, "kernel.form.key", "name", `line 1 (byte 12): key "name" given twice`},
		{"unknown key", func() error {
			_, err := Parse([]byte("{\"tensors\": [{\"name\": \"a\",\n \"shapes\": [1]}]}"))
			return err
		},
			fault.ErrInvalid, true, "kernel.form.key", "tensors[0].shapes", `line 2 (byte 28): unknown key "shapes" (legal: arg, buffer, dtype, encoding, file, kind, loc, name, shape, writeback)`},
		{"key in another case", func() error { _, err := Parse([]byte(`{"Format": "tpbsim.kernel"}`)); return err },
			fault.ErrInvalid, true, "kernel.form.key", "Format", `key "Format"; the form's key is "format"`},
		{"memset value", func() error {
			_, err := Parse([]byte("{\"calls\": [{\"op\": \"memset\",\n\"value\": \"zero\"}]}"))
			return err
		}, fault.ErrInvalid, true, "kernel.form.json", "calls[0].value", `line 2 (byte 37): value zero: want a number`},
		{"data after the object", func() error { _, err := Parse([]byte("{}\n\n {}")); return err },
			fault.ErrInvalid, true, "kernel.form.json", "", "line 3 (byte 5): data after the kernel object"},
		{"view past the tensors", copyKernel(func(b *kb) { b.k.Calls[1].Src.Tensor = 9 }),
			fault.ErrInvalid, true, "kernel.form.view", "calls[1].src.tensor", "9; legal 0..3"},
		{"invalid generation", func() error { _, err := Lower(&newKB().k, Options{}); return err },
			fault.ErrInvalid, true, isa.RuleGeneration, "gen", "generation"},
		{"unknown NKI release", func() error { return CheckNKIVersion("3.0") },
			fault.ErrInvalid, true, "kernel.nki_version", "nki_version", `"3.0"`},
		{"NKI rule", copyKernel(func(b *kb) {
			b.k.Calls[1] = Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Loc: "t.py:11", Dst: full(3, []int{32, 1}), Data: full(2, []int{32, 32}), ReduceOp: "power", Axis: []int{1}}
		}), fault.ErrInvalid, false, "nki.tensor_reduce.op", "t.py:11: nisa.tensor_reduce: op", "NKI rule broken: rule nki.tensor_reduce.op"},
		{"capacity", copyKernel(func(b *kb) {
			b.k.Tensors[2].Shape = []int{32, 65536}
			b.k.Calls[0].Dst, b.k.Calls[0].Src = full(2, []int{32, 65536}), &View{Tensor: 0, Pattern: [][2]int64{{0, 32}, {0, 65536}}}
			b.k.Calls[1].Src = &View{Tensor: 2, Pattern: [][2]int64{{65536, 32}, {1, 32}}}
		}), fault.ErrCapacity, false, "kernel.capacity", "tensor x", "capacity exceeded: rule kernel.capacity"},
		{"not modelled", copyKernel(func(b *kb) { b.k.Tensors[2].DType = "tfloat32" }),
			fault.ErrUnsupported, false, "kernel.dtype", "t.py:1: tensor x", "not modelled by tpbsim"},
		{"DMA views overlap", copyKernel(func(b *kb) {
			b.k.Calls[1] = Call{Op: OpDMACopy, Call: "nisa.dma_copy", Loc: "t.py:11", Dst: &View{Tensor: 0, Offset: 32, Pattern: [][2]int64{{32, 16}, {1, 32}}},
				Src: &View{Tensor: 0, Pattern: [][2]int64{{32, 16}, {1, 32}}}}
		}), fault.ErrInvalid, false, "dge_src_dst_disjoint", "t.py:11: nisa.dma_copy: dst", "rule dge_src_dst_disjoint: dst = src bytes [0x0, 0x800) and dst bytes [0x80, 0x880) share byte 0x80: "},
		{"DMA into PSUM in 2-byte words", func() error {
			b, _, _ := loadComputeStore(32, 3, 32, 3, "bfloat16", "bfloat16", func(b *kb, x, y int) {
				b.call(Call{Op: OpDMACopy, Call: "nisa.dma_copy", Loc: "t.py:11", Dst: full(y, []int{32, 3}), Src: full(x, []int{32, 3})})
			})
			b.k.Tensors[3].Buffer = BufPSUM
			_, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
			return err
		}, fault.ErrInvalid, false, "psum_write_4byte", "t.py:11: nisa.dma_copy: dst", "writes 2-byte elements into \"y\""},
		{"lowered word refused", func() error {
			// A STREAM_TRANSPOSE on the SP queue: no lowering emits it, so the check pipeline's
			// refusal of it stands for a lowering defect.
			in := &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpSTREAM_TRANSPOSE, InstWordLen: 16}, NumActiveChannels: 32}
			lw := &Lowered{Kernel: &newKB().k, Gen: isa.CAYMAN, Insts: []*Inst{{Engine: isa.EngineTPB_SP, Inst: in, Origin: "t.py:7 nisa.nc_transpose", did: -1}}}
			return lw.selfCheck()
		}, fault.ErrInvalid, false, "opcode_legal_on_engine", "t.py:7 nisa.nc_transpose: SP[0]", "lowering refused by the machine's checks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil {
				t.Fatal("no error")
			}
			for _, layer := range []struct {
				name string
				err  error
			}{{"as returned", err}, {"fmt.Errorf", fmt.Errorf("k.json: %w", err)}, {"fault.Wrap", fault.Wrap("kernel run", err)}} {
				e := layer.err
				if got := fault.Category(e); got != tc.cat {
					t.Errorf("%s: category %v, want %v: %v", layer.name, got, tc.cat, e)
				}
				for _, c := range fault.Categories {
					if c != tc.cat && errors.Is(e, c) {
						t.Errorf("%s: also %v", layer.name, c)
					}
				}
				if IsMalformed(e) != tc.malformed {
					t.Errorf("%s: IsMalformed = %v, want %v", layer.name, !tc.malformed, tc.malformed)
				}
				if got := fault.Rule(e); got != tc.rule {
					t.Errorf("%s: rule %q, want %q", layer.name, got, tc.rule)
				}
				if p := fault.Path(e); !strings.Contains(p, tc.path) {
					t.Errorf("%s: path %q, want it to hold %q", layer.name, p, tc.path)
				}
				var ke *Error
				var le *LoweringError
				if errors.As(e, &ke) == errors.As(e, &le) {
					t.Errorf("%s: want exactly one of *Error, *LoweringError: %T", layer.name, e)
				}
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q lacks %q", err, tc.msg)
			}
			var le *LoweringError
			if errors.As(err, &le) {
				var ie *sim.InstError
				if !errors.As(err, &ie) || ie.Rule != tc.rule {
					t.Errorf("the machine's *sim.InstError is not in the chain: %v", err)
				}
			}
		})
	}
}
