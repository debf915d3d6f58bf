package asm

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

func randWord(r *rand.Rand) [64]byte {
	var w [64]byte
	r.Read(w[:])
	switch r.Intn(4) {
	case 0: // a modelled opcode with a mostly sane word
		ops := []isa.Opcode{0x6b, 0x6a, 0x46, 0x47, 0x48, 0x42, 0x52, 0x83, 0x84, 0x4e, 0x5e, 0x8c, 0x69, 0x49, 0xb8, 0xbb, 0xbd, 0xf1}
		w[0] = byte(ops[r.Intn(len(ops))])
		w[1] = 16
	case 1:
		w[0] = byte(isa.AllOpcodes[r.Intn(len(isa.AllOpcodes))])
	}
	return w
}

func TestTextRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			for n := 0; n < 3000; n++ {
				w := randWord(r)
				line := mustFormat(t, w, g)
				got, err := ParseLine(line, g)
				if err != nil {
					t.Fatalf("%x\n%s\n%v", w, line, err)
				}
				if got != w {
					t.Fatalf("text round trip differs\n in %x\nout %x\n%s", w, got, line)
				}
			}
		})
	}
}

func TestJSONRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			var buf bytes.Buffer
			var words [][64]byte
			for n := 0; n < 1000; n++ {
				w := randWord(r)
				words = append(words, w)
				buf.Write(ToJSON(w, g, KV{"word", n}, KV{"offset", "0x0"}))
				buf.WriteByte('\n')
			}
			p, err := ParseJSON("x.json", buf.Bytes(), g)
			if err != nil {
				t.Fatal(err)
			}
			for k, it := range p.Items {
				if it.Word != words[k] {
					t.Fatalf("word %d: JSON round trip differs\n in %x\nout %x\n%s", k, words[k], it.Word, ToJSON(words[k], g))
				}
			}
		})
	}
}

const example = `# a DVE queue and a DMA on SP
.gen CAYMAN
.engine DVE
STREAM_TRANSPOSE in=BFLOAT16 out=BFLOAT16 nac=32 mask_enable=1 \
    src=sbuf:0:0x0[32@1] dst=sbuf:0:0x1000[32@1]   # 32x32 bf16 tile
COPY in_dtype=FP32 out_dtype=FP32 num_active_channels=64 src_mem_pattern=psum:0:0x0[16@1,4@16] dst_mem_pattern=sbuf:0:0x2000[64]
.engine SP
DMAMEMCPY src_start_addr=hbm:0x1000 src_step_elem=[1,64] src_num_elem=[64,4] src_elem_size=2 \
    dst_start_addr=sbuf:0:0x40 dst_step_elem=[1,64] dst_num_elem=[64,4] dst_elem_size=2 in_dtype=BF16 out_dtype=BF16 \
    wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=3 semaphore_value=1
`

func TestParseProgram(t *testing.T) {
	p, err := ParseProgram("ex.s", []byte(example), isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("queues", func(t *testing.T) {
		if len(p.Items) != 3 || len(p.Queues[isa.EngineDVE]) != 2 || len(p.Queues[isa.EngineTPB_SP]) != 1 {
			t.Fatalf("%+v", p.Queues)
		}
	})
	t.Run("lines", func(t *testing.T) {
		if p.Items[0].Line != 4 || p.Items[1].Line != 6 || p.Items[2].Line != 8 {
			t.Errorf("lines %d %d %d", p.Items[0].Line, p.Items[1].Line, p.Items[2].Line)
		}
	})
	t.Run("fields", func(t *testing.T) {
		st := p.Items[0].Inst.(*isa.S4D4TR)
		if st.DstMemPattern.StartAddr != 0x1000 || st.SrcMemPattern.NumElem != [4]uint16{32, 1, 1, 1} || st.MaskEnable != 1 {
			t.Errorf("%+v", st)
		}
		d := p.Items[2].Inst.(*isa.DMADirect2D)
		if d.DstStartAddr != isa.LocalAddr8(0x40) || d.Events.WaitIdx != 3 || d.Events.WaitMode != isa.WaitForSemGEImm {
			t.Errorf("%+v", d)
		}
	})
	for _, it := range p.Items {
		t.Run(fmt.Sprintf("line %d", it.Line), func(t *testing.T) {
			if vs := isa.Validate(it.Inst, p.Gen); len(vs) != 0 {
				t.Errorf("%v", vs)
			}
			// the disassembly reads back
			if w, err := ParseLine(mustFormat(t, it.Word, isa.CAYMAN), isa.CAYMAN); err != nil || w != it.Word {
				t.Errorf("%s: %v", mustFormat(t, it.Word, isa.CAYMAN), err)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	text := func(src string) error { _, err := Parse("f.s", []byte(src), isa.CAYMAN); return err }
	program := func(src string) error { _, err := ParseProgram("f.s", []byte(src), isa.CAYMAN); return err }
	json := func(src string) error { _, err := ParseJSON("f.json", []byte(src), isa.CAYMAN); return err }
	for _, c := range []struct {
		name, src, want string
		parse           func(string) error
	}{
		{"opcode", "STREAM_TRANSPOS nac=32", "f.s:1: opcode: unknown opcode", text},
		{"range", "\nCOPY nac=300", "f.s:2: num_active_channels: 300 out of range", text},
		{"partition", "COPY src=sbuf:200:0[1@1]", "f.s:1: src_mem_pattern: address \"sbuf:200:0\": partition 200 out of range", text},
		{"field", "COPY bogus=1", "f.s:1: bogus: no field", text},
		{"dtype", "COPY in=FP99", "f.s:1: in_dtype: unknown dtype", text},
		{"engine", ".engine XYZ", "f.s:1: unknown engine", text},
		{"no value", "COPY nac", "want key=value", text},
		{"dims", "COPY src=sbuf:0:0[1@1,1@1,1@1,1@1,1@1]", "want 1 to 4 dims", text},
		{"unclosed bracket", "COPY src=sbuf:0:0[32@1 dst=sbuf:0:0x100[32@1]", `f.s:1: src_mem_pattern: the '[' of "sbuf:0:0[32@1" is not closed before "dst=sbuf:0:0x100[32@1]"`, text},
		{"array length", "COPY reserved1=[1,2]", "2 values given, the field has 5", text},
		{"word", ".word 00", ".word wants 128 hex digits", text},
		{"set twice", "COPY nac=32 num_active_channels=64", "f.s:1: num_active_channels: set twice (nac=32, then num_active_channels=64)", text},
		{"no engine", "0x3f", "no default engine", program},
		{"json", "{\"opcode\":\"COPY\"}\n{\"opcode\":\"COPY\",\"op\":\"NOPE\"}", "f.json:2: op: unknown ALU op \"NOPE\"", json},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.parse(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q: got %v, want %q", c.src, err, c.want)
			}
		})
	}
}

func TestInvalidValuesCanBeWritten(t *testing.T) {
	w, err := ParseLine("STREAM_TRANSPOSE in_dtype=0x3f op=0xfe op_dim=1 wait_mode=0x77", isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	text := mustFormat(t, w, isa.CAYMAN)
	for _, c := range []struct {
		field string
		off   int
		v     byte
		shown string // "" when the disassembly need not show it as a number
	}{
		{"in_dtype", 32, 0x3f, "in_dtype=0x3f"},
		{"op", 36, 0xfe, "op=0xfe"},
		{"op_dim", 37, 1, "op_dim=0x01"},
		{"wait_mode", 4, 0x77, "wait_mode=0x77"},
	} {
		t.Run(c.field, func(t *testing.T) {
			if w[c.off] != c.v {
				t.Errorf("byte %d = %#x, want %#x", c.off, w[c.off], c.v)
			}
			if !strings.Contains(text, c.shown) {
				t.Errorf("%s does not show %s", text, c.shown)
			}
		})
	}
}

// FuzzAsm's inputs are programs of up to fuzzAsmMax bytes: one instruction line, with its
// continuations, or a few directives. The grammar is line by line, so a longer input only
// repeats what shorter ones reach, while Go's minimiser spends about n^2 executions on each new
// input of n bytes (the 650-byte example stalled 10 s runs at 0 execs/s). The example program
// is seeded line by line for the same reason.
const fuzzAsmMax = 400

func FuzzAsm(f *testing.F) {
	for _, in := range strings.SplitAfter(strings.ReplaceAll(example, "\\\n", "\x00"), "\n") {
		if in = strings.ReplaceAll(in, "\x00", "\\\n"); strings.TrimSpace(in) != "" {
			f.Add(in)
		}
	}
	f.Add("COPY src=sbuf:0:0[1@-1] dst=psum:3:0x10[2@2,3@4]")
	f.Add(".word " + strings.Repeat("ab", 64))
	f.Add("DMA_GATHER_TRANSPOSE dtype.dtype_lo=BFLOAT16 flags.gather_dim=Y dma_configs=3")
	f.Add(".gen MAVERICK\n.engine ACT\nCAST\n.engine SP\n0xee\n")
	f.Add(".engine ACT\nCAST\n.engine none\n0xee\nCOPY\n")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > fuzzAsmMax {
			return
		}
		p, err := Parse("fuzz.s", []byte(src), isa.CAYMAN)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "fuzz.s" || e.Line < 1 || e.Line > strings.Count(src, "\n")+2 {
				t.Fatalf("error is not an *Error naming fuzz.s and a line: %#v", err)
			}
			return
		}
		// The whole program printed back (a .gen line, .engine lines where the queue is not the
		// one the reader would pick) reads back to the same words, queues and generation.
		var b strings.Builder
		fmt.Fprintf(&b, ".gen %v\n", p.Gen)
		cur := isa.EngineNone // the open section; none: each word to its opcode's engine
		for _, it := range p.Items {
			reads := cur
			if reads == isa.EngineNone {
				reads = isa.Opcode(it.Word[0]).Engine()
			}
			if it.Engine != reads {
				fmt.Fprintf(&b, ".engine %v\n", it.Engine) // "none" closes the section
				cur = it.Engine
			}
			b.WriteString(mustFormat(t, it.Word, p.Gen) + "\n")
		}
		q, err := Parse("again.s", []byte(b.String()), isa.CAYMAN)
		if err != nil {
			t.Fatalf("printed program does not parse: %v\n%s", err, b.String())
		}
		if q.Gen != p.Gen || len(q.Items) != len(p.Items) {
			t.Fatalf("printed program reads back as %v with %d items, want %v with %d", q.Gen, len(q.Items), p.Gen, len(p.Items))
		}
		for k := range p.Items {
			if q.Items[k].Word != p.Items[k].Word || q.Items[k].Engine != p.Items[k].Engine {
				t.Fatalf("item %d reads back differently (engine %v, want %v)", k, q.Items[k].Engine, p.Items[k].Engine)
			}
		}
		for _, it := range p.Items {
			line := mustFormat(t, it.Word, p.Gen)
			w, err := ParseLine(line, p.Gen)
			if err != nil || w != it.Word {
				t.Fatalf("disasm->asm differs: %q: %v", line, err)
			}
			js := ToJSON(it.Word, p.Gen)
			q, err := ParseJSON("j", js, p.Gen)
			if err != nil || q.Items[0].Word != it.Word {
				t.Fatalf("JSON round trip differs: %s: %v", js, err)
			}
		}
	})
}

// TestDTypeNames: a dtype is written by its wire name, by number, or by any other name num
// gives the element type (bf16, float32, ...); nothing else.
func TestDTypeNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want isa.DType
		err  bool
	}{
		{"BFLOAT16", isa.DTypeBFLOAT16, false}, {"BF16", isa.DTypeBFLOAT16, false}, {"bfloat16", isa.DTypeBFLOAT16, false},
		{"F32", isa.DTypeFP32, false}, {"float32", isa.DTypeFP32, false}, {"F16", isa.DTypeFP16, false},
		{"float8_e4m3", isa.DTypeFP8_EXP4, false}, {"0x3f", 0x3f, false}, {"CPTC1", isa.DTypeCPTC1, false},
		{"float8_e4m3fn", 0, true}, {"FP99", 0, true},
	} {
		t.Run(c.in, func(t *testing.T) {
			w, err := ParseLine("COPY in_dtype="+c.in, isa.CAYMAN)
			if c.err {
				if err == nil || !strings.Contains(err.Error(), "unknown dtype") {
					t.Errorf("%v, want unknown dtype", err)
				}
				return
			}
			if err != nil || isa.DType(w[32]) != c.want {
				t.Errorf("in_dtype byte %#x %v, want %v", w[32], err, c.want)
			}
		})
	}
}
