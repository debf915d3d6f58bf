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
	// text: disasm -> asm gives the same bytes
	code, text, _ := runISACLI(t, "disasm", bin)
	if code != 0 || !strings.Contains(text, "STREAM_TRANSPOSE") || !strings.Contains(text, "# word 1 @0x40") {
		t.Fatalf("disasm: %d\n%s", code, text)
	}
	s := filepath.Join(dir, "back.s")
	os.WriteFile(s, []byte(text), 0o644)
	bin2 := filepath.Join(dir, "back.bin")
	if code, _, stderr := runISACLI(t, "asm", s, "-o", bin2); code != 0 {
		t.Fatalf("asm back: %s", stderr)
	}
	if b, _ := os.ReadFile(bin2); !bytes.Equal(b, orig) {
		t.Fatal("text round trip differs")
	}
	// JSON: disasm --json -> asm gives the same bytes
	code, js, _ := runISACLI(t, "disasm", "--json", bin)
	if code != 0 || !strings.HasPrefix(js, `{"word":0,"offset":"0x0","engine":"SP","gen":"CAYMAN","opcode":"DMAMEMCPY"`) {
		t.Fatalf("disasm --json: %d\n%s", code, js)
	}
	j := filepath.Join(dir, "back.json")
	os.WriteFile(j, []byte(js), 0o644)
	bin3 := filepath.Join(dir, "back3.bin")
	if code, _, stderr := runISACLI(t, "asm", j, "-o", bin3); code != 0 {
		t.Fatalf("asm json: %s", stderr)
	}
	if b, _ := os.ReadFile(bin3); !bytes.Equal(b, orig) {
		t.Fatal("JSON round trip differs")
	}
}

func TestAsmErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.s")
	os.WriteFile(bad, []byte("COPY nac=32\nCOPY nac=999\n"), 0o644)
	out := filepath.Join(dir, "out.bin")
	code, _, stderr := runISACLI(t, "asm", bad, "-o", out)
	if code != 2 || !strings.Contains(stderr, "bad.s:2: num_active_channels: 999 out of range") {
		t.Fatalf("%d %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output written despite the error")
	}
	if code, _, _ := runISACLI(t, "asm", bad); code != 2 {
		t.Fatalf("missing -o: %d", code)
	}
	good := filepath.Join(dir, "good.s")
	os.WriteFile(good, []byte("COPY nac=32\n"), 0o644)
	if code, _, _ := runISACLI(t, "asm", good, "-o", filepath.Join(dir, "no/such/dir/x.bin")); code != 2 {
		t.Fatalf("unwritable output: %d", code)
	}
	if code, _, _ := runISACLI(t, "asm", filepath.Join(dir, "missing.s"), "-o", out); code != 2 {
		t.Fatalf("missing input: %d", code)
	}
	// nothing but the output appears in the directory (the temp file is gone)
	if code, _, _ := runISACLI(t, "asm", good, "-o", out); code != 0 {
		t.Fatal("asm good")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

// A single-line JSON array: the error names the instruction's index, not only file:1, and the
// output is not written.
func TestAsmJSONSingleLineIndex(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "one.json")
	ok := `{"opcode":"COPY"}`
	os.WriteFile(in, []byte(`[`+ok+`,`+ok+`,`+ok+`,{"opcode":"COPY","in_dtype":"NOPE"}]`), 0o644)
	out := filepath.Join(dir, "out.bin")
	code, _, stderr := runISACLI(t, "asm", in, "-o", out)
	if code != 2 || !strings.Contains(stderr, in+`:1: instruction 3: in_dtype: unknown dtype "NOPE"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written for bad input")
	}
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
			args := []string{"disasm", "--gen", g.String(), bin}
			src := filepath.Join(dir, g.String()+".s")
			if form == "json" {
				args = append(args, "--json")
				src = filepath.Join(dir, g.String()+".json")
			}
			code, out, stderr := runISACLI(t, args...)
			if code != 0 {
				t.Fatalf("%v %s disasm: %d %s", g, form, code, stderr)
			}
			if g.Geometry().PSUMSize == 0 && strings.Contains(out, "psum:") {
				t.Fatalf("%v %s: disasm prints psum: on a generation without PSUM", g, form)
			}
			os.WriteFile(src, []byte(out), 0o644)
			back := filepath.Join(dir, "back.bin")
			if code, _, stderr := runISACLI(t, "asm", src, "-o", back); code != 0 {
				t.Fatalf("%v %s asm: %d %s", g, form, code, stderr)
			}
			if b, _ := os.ReadFile(back); !bytes.Equal(b, orig) {
				t.Fatalf("%v %s: disasm | asm (no --gen) gives different bytes", g, form)
			}
		}
	}
}

// MAVERICK has no PSUM: psum: addresses are refused everywhere they are parsed (asm text and
// JSON naming file:line and field, check, dge --dst, run --dump), not encoded as SBUF.
func TestMaverickRefusesPSUM(t *testing.T) {
	dir := t.TempDir()
	const msg = `address "psum:0:0x0": MAVERICK has no PSUM (PSUM_BUF_SZ = 0)`
	s := filepath.Join(dir, "m.s")
	os.WriteFile(s, []byte(".gen MAVERICK\nCOPY nac=64 src=sbuf:0:0x0[64@1] dst=psum:0:0x0[64@1]\n"), 0o644)
	out := filepath.Join(dir, "m.bin")
	if code, _, stderr := runISACLI(t, "asm", s, "-o", out); code != 2 || !strings.Contains(stderr, "m.s:2: dst_mem_pattern: "+msg) {
		t.Fatalf("asm: %d %q", code, stderr)
	}
	if code, _, stderr := runISACLI(t, "check", s); code != 2 || !strings.Contains(stderr, msg) {
		t.Fatalf("check: %d %q", code, stderr)
	}
	js := filepath.Join(dir, "m.json")
	os.WriteFile(js, []byte(`{"gen":"MAVERICK","opcode":"COPY","dst_mem_pattern":{"start_addr":"psum:0:0x0"}}`+"\n"), 0o644)
	if code, _, stderr := runISACLI(t, "asm", js, "-o", out); code != 2 || !strings.Contains(stderr, "m.json:1: dst_mem_pattern.start_addr: "+msg) {
		t.Fatalf("asm json: %d %q", code, stderr)
	}
	// --gen MAVERICK on a file naming no generation
	plain := filepath.Join(dir, "p.s")
	os.WriteFile(plain, []byte("COPY nac=64 dst=psum:0:0x0[64@1]\n"), 0o644)
	if code, _, stderr := runISACLI(t, "asm", "--gen", "MAVERICK", plain, "-o", out); code != 2 || !strings.Contains(stderr, "p.s:1: dst_mem_pattern: "+msg) {
		t.Fatalf("asm --gen MAVERICK: %d %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output written despite the error")
	}
	if code, _, stderr := runISACLI(t, "dge", "run", "--gen", "MAVERICK", "--src", "hbm:0x0", "--dst", "psum:0:0",
		"--shape", "4,4", "--perm", "1,0", "--dtype", "FP32"); code != 2 || !strings.Contains(stderr, "--dst") || !strings.Contains(stderr, "MAVERICK has no PSUM") {
		t.Fatalf("dge run --dst psum: %d %q", code, stderr)
	}
	ok := filepath.Join(dir, "ok.s")
	os.WriteFile(ok, []byte(".gen MAVERICK\nCOPY nac=64 src=sbuf:0:0x0[64@1] dst=sbuf:0:0x1000[64@1]\n"), 0o644)
	if code, _, stderr := runISACLI(t, "run", ok, "--dump", "psum:0:0="+"4x4:FP32:"+filepath.Join(dir, "o.npy")); code != 2 || !strings.Contains(stderr, "MAVERICK has no PSUM") {
		t.Fatalf("run --dump psum: %d %q", code, stderr)
	}
}

// The file's generation wins over the default; an explicit --gen that contradicts it is an
// error naming the line that set it.
func TestAsmGenPrecedence(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "x.json")
	os.WriteFile(js, []byte(`{"word":0,"gen":"MAVERICK","opcode":"COPY","dst_mem_pattern":{"start_addr":"sbuf:1:0x0"}}`+"\n"), 0o644)
	out := filepath.Join(dir, "x.bin")
	if code, _, stderr := runISACLI(t, "asm", js, "-o", out); code != 0 {
		t.Fatalf("asm: %d %s", code, stderr)
	}
	if code, _, stderr := runISACLI(t, "asm", "--gen", "MAVERICK", js, "-o", out); code != 0 {
		t.Fatalf("asm --gen MAVERICK: %d %s", code, stderr)
	}
	if code, _, stderr := runISACLI(t, "asm", "--gen", "CAYMAN", js, "-o", out); code != 2 ||
		!strings.Contains(stderr, `x.json:1: gen: the file says "gen" MAVERICK but --gen is CAYMAN`) {
		t.Fatalf("asm --gen CAYMAN: %d %q", code, stderr)
	}
	s := filepath.Join(dir, "x.s")
	os.WriteFile(s, []byte("# c\n.gen SUNDA\nCOPY nac=1\n"), 0o644)
	if code, _, stderr := runISACLI(t, "check", "--gen", "MARIANA", s); code != 2 ||
		!strings.Contains(stderr, `x.s:2: gen: the file says .gen SUNDA but --gen is MARIANA`) {
		t.Fatalf("check --gen MARIANA: %d %q", code, stderr)
	}
	mixed := filepath.Join(dir, "m.json")
	os.WriteFile(mixed, []byte(`[{"gen":"CAYMAN","opcode":"COPY"},`+"\n"+`{"gen":"MAVERICK","opcode":"COPY"}]`), 0o644)
	if code, _, stderr := runISACLI(t, "asm", mixed, "-o", out); code != 2 ||
		!strings.Contains(stderr, "m.json:2: gen: MAVERICK contradicts CAYMAN (line 1): a file holds one generation") {
		t.Fatalf("mixed: %d %q", code, stderr)
	}
}
