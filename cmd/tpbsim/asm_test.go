package main

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// runISACLI runs the CLI in-process and returns the exit code, stdout and stderr.
func runISACLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestAsmDisasmRoundTrip(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ex.bin")
	if code, _, stderr := runISACLI(t, "asm", "../../testdata/asm/example.s", "-o", bin); code != 0 {
		t.Fatalf("asm: %d %s", code, stderr)
	}
	orig, err := os.ReadFile(bin)
	if err != nil || len(orig) != 5*64 {
		t.Fatalf("%v, %d bytes", err, len(orig))
	}
	for _, c := range []struct {
		form  string
		args  []string
		check func(out string) bool
	}{
		{"text", []string{"disasm", bin}, func(out string) bool {
			return strings.Contains(out, "STREAM_TRANSPOSE") && strings.Contains(out, "# word 1 @0x40")
		}},
		{"json", []string{"disasm", "--json", bin}, func(out string) bool {
			return strings.HasPrefix(out, `{"word":0,"offset":"0x0","engine":"SP","gen":"CAYMAN","opcode":"DMAMEMCPY"`)
		}},
	} {
		t.Run(c.form, func(t *testing.T) {
			code, out, _ := runISACLI(t, c.args...)
			if code != 0 || !c.check(out) {
				t.Fatalf("disasm: %d\n%s", code, out)
			}
			src := filepath.Join(dir, "back."+map[string]string{"text": "s", "json": "json"}[c.form])
			os.WriteFile(src, []byte(out), 0o644)
			back := filepath.Join(dir, "back-"+c.form+".bin")
			if code, _, stderr := runISACLI(t, "asm", src, "-o", back); code != 0 {
				t.Fatalf("asm back: %s", stderr)
			}
			if b, _ := os.ReadFile(back); !bytes.Equal(b, orig) {
				t.Fatal("disasm | asm gives other bytes")
			}
		})
	}
}

// Usage and input errors exit 2 naming file, line (and a JSON object's index) and field, and
// leave no output behind.
func TestAsmErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	bad := write("bad.s", "COPY nac=32\nCOPY nac=999\n")
	good := write("good.s", "COPY nac=32\n")
	ok := `{"opcode":"COPY"}`
	oneLine := write("one.json", `[`+ok+`,`+ok+`,`+ok+`,{"opcode":"COPY","in_dtype":"NOPE"}]`)
	out := filepath.Join(dir, "out.bin")
	for _, c := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"field out of range", []string{"asm", bad, "-o", out}, "bad.s:2: num_active_channels: 999 out of range"},
		{"missing -o", []string{"asm", bad}, "-o OUT.bin is required"},
		{"unwritable output", []string{"asm", good, "-o", filepath.Join(dir, "no/such/dir/x.bin")}, ""},
		{"missing input", []string{"asm", filepath.Join(dir, "missing.s"), "-o", out}, "missing.s"},
		// a single-line JSON array: the error names the instruction's index, not only file:1
		{"json object index", []string{"asm", oneLine, "-o", out}, oneLine + `:1: instruction 3: in_dtype: unknown dtype "NOPE"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runISACLI(t, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d: %q, want 2 and %q", code, stderr, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatal("output written despite the error")
			}
		})
	}
	t.Run("no temp file left", func(t *testing.T) {
		if code, _, _ := runISACLI(t, "asm", good, "-o", out); code != 0 {
			t.Fatal("asm good")
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("temp file left: %s", e.Name())
			}
		}
	})
}

// For every generation: random 64-byte words (address fields mostly on-chip, so the partition
// stride and PSUM matter) -> disasm --gen G (text and --json) -> asm with NO --gen -> the same
// bytes. The .gen line and the "gen" keys carry the generation.
func TestDisasmAsmRoundTripEveryGen(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(11))
	for _, g := range isa.Generations {
		var orig []byte
		for n := 0; n < 400; n++ {
			var w [isa.InstNBytes]byte
			r.Read(w[:])
			if n%2 == 0 {
				w[0] = byte(isa.AllOpcodes[r.Intn(len(isa.AllOpcodes))])
				w[1] = 16
			}
			for _, f := range isa.LayoutOf(isa.Opcode(w[0])).Fields {
				for k := 0; k < f.Count; k++ {
					a := uint32(r.Int63n(0x8800000))
					switch f.Kind {
					case isa.KAddr4:
						f.Set(&w, k, uint64(a))
					case isa.KAddr8:
						f.Set(&w, k, uint64(isa.LocalAddr8(a)))
					}
				}
			}
			orig = append(orig, w[:]...)
		}
		bin := filepath.Join(dir, g.String()+".bin")
		os.WriteFile(bin, orig, 0o644)
		for _, form := range []string{"text", "json"} {
			t.Run(g.String()+"/"+form, func(t *testing.T) {
				args := []string{"disasm", "--gen", g.String(), bin}
				src := filepath.Join(dir, g.String()+".s")
				if form == "json" {
					args = append(args, "--json")
					src = filepath.Join(dir, g.String()+".json")
				}
				code, out, stderr := runISACLI(t, args...)
				if code != 0 {
					t.Fatalf("disasm: %d %s", code, stderr)
				}
				if g.Geometry().PSUMSize == 0 && strings.Contains(out, "psum:") {
					t.Fatalf("disasm prints psum: on a generation without PSUM")
				}
				os.WriteFile(src, []byte(out), 0o644)
				back := filepath.Join(dir, "back.bin")
				if code, _, stderr := runISACLI(t, "asm", src, "-o", back); code != 0 {
					t.Fatalf("asm: %d %s", code, stderr)
				}
				if b, _ := os.ReadFile(back); !bytes.Equal(b, orig) {
					t.Fatalf("disasm | asm (no --gen) gives different bytes")
				}
			})
		}
	}
}

// MAVERICK has no PSUM: psum: addresses are refused everywhere they are parsed (asm text and
// JSON naming file:line and field, check, dge --dst, run --dump), not encoded as SBUF.
func TestMaverickRefusesPSUM(t *testing.T) {
	dir := t.TempDir()
	const msg = `address "psum:0:0x0": MAVERICK has no PSUM (PSUM_BUF_SZ = 0)`
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	s := write("m.s", ".gen MAVERICK\nCOPY nac=64 src=sbuf:0:0x0[64@1] dst=psum:0:0x0[64@1]\n")
	js := write("m.json", `{"gen":"MAVERICK","opcode":"COPY","dst_mem_pattern":{"start_addr":"psum:0:0x0"}}`+"\n")
	plain := write("p.s", "COPY nac=64 dst=psum:0:0x0[64@1]\n")
	ok := write("ok.s", ".gen MAVERICK\nCOPY nac=64 src=sbuf:0:0x0[64@1] dst=sbuf:0:0x1000[64@1]\n")
	out := filepath.Join(dir, "m.bin")
	for _, c := range []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"asm", []string{"asm", s, "-o", out}, []string{"m.s:2: dst_mem_pattern: " + msg}},
		{"check", []string{"check", s}, []string{msg}},
		{"asm json", []string{"asm", js, "-o", out}, []string{"m.json:1: dst_mem_pattern.start_addr: " + msg}},
		{"asm --gen MAVERICK", []string{"asm", "--gen", "MAVERICK", plain, "-o", out}, []string{"p.s:1: dst_mem_pattern: " + msg}},
		{"dge run --dst", []string{"dge", "run", "--gen", "MAVERICK", "--src", "hbm:0x0", "--dst", "psum:0:0",
			"--shape", "4,4", "--perm", "1,0", "--dtype", "FP32"}, []string{"--dst", "MAVERICK has no PSUM"}},
		{"run --dump", []string{"run", ok, "--dump", "psum:0:0=" + "4x4:FP32:" + filepath.Join(dir, "o.npy")}, []string{"MAVERICK has no PSUM"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runISACLI(t, c.args...)
			if code != 2 {
				t.Fatalf("exit %d: %q", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("%q does not say %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatal("output written despite the error")
			}
		})
	}
}

// The file's generation wins over the default; an explicit --gen that contradicts it is an
// error naming the line that set it.
func TestAsmGenPrecedence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	js := write("x.json", `{"word":0,"gen":"MAVERICK","opcode":"COPY","dst_mem_pattern":{"start_addr":"sbuf:1:0x0"}}`+"\n")
	s := write("x.s", "# c\n.gen SUNDA\nCOPY nac=1\n")
	mixed := write("m.json", `[{"gen":"CAYMAN","opcode":"COPY"},`+"\n"+`{"gen":"MAVERICK","opcode":"COPY"}]`)
	out := filepath.Join(dir, "x.bin")
	for _, c := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"the file's generation", []string{"asm", js, "-o", out}, 0, ""},
		{"--gen agrees", []string{"asm", "--gen", "MAVERICK", js, "-o", out}, 0, ""},
		{"--gen contradicts JSON", []string{"asm", "--gen", "CAYMAN", js, "-o", out}, 2, `x.json:1: gen: the file says "gen" MAVERICK but --gen is CAYMAN`},
		{"--gen contradicts .gen", []string{"check", "--gen", "MARIANA", s}, 2, `x.s:2: gen: the file says .gen SUNDA but --gen is MARIANA`},
		{"two generations in a file", []string{"asm", mixed, "-o", out}, 2, "m.json:2: gen: MAVERICK contradicts CAYMAN (line 1): a file holds one generation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, _, stderr := runISACLI(t, c.args...); code != c.code || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d: %q, want %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
}
