package isa

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The gcc oracle: C definitions written from the seed's struct listing (seed 000 §4, §4.1) and
// FACTS' DMA / CTRL_IM / D4_MR tables (testdata/isa/oracle/tpb_structs.h), compiled at test
// time. It checks sizeof and every offset against isa.Layout, and the bytes of filled structs
// in both directions: C-filled bytes decoded by Go, Go-encoded bytes read by C. Skipped when
// gcc is absent.

var oracleKinds = map[string]StructKind{
	"S4D4_TR": StructS4D4_TR, "CTRL_IM": StructCTRL_IM, "D4_MR": StructD4_MR, "DMA_DIRECT2D": StructDMA_DIRECT2D,
	"DMA_INDIRECT1D": StructDMA_INDIRECT1D, "DMA_GATHER_XPOSE": StructDMA_GATHER_XPOSE, "DMA_DIRECT2D_XPOSE": StructDMA_DIRECT2D_XPOSE,
}

var kindOpcode = map[StructKind]Opcode{
	StructS4D4_TR: OpSTREAM_TRANSPOSE, StructCTRL_IM: OpLOAD_MASK_SELECT, StructD4_MR: OpMEMSET,
	StructDMA_DIRECT2D: OpDMAMEMCPY, StructDMA_INDIRECT1D: OpDMA_INDIRECT, StructDMA_GATHER_XPOSE: OpDMA_GATHER_TRANSPOSE,
	StructDMA_DIRECT2D_XPOSE: OpDMA_TRANSPOSE,
}

func buildOracle(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: oracle test skipped")
	}
	bin := filepath.Join(t.TempDir(), "oracle")
	cmd := exec.Command(gcc, "-std=gnu11", "-O1", "-I", "../testdata/isa/oracle", "-o", bin, "../testdata/isa/oracle/oracle.c")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

func runOracle(t *testing.T, bin string, stdin []byte, args ...string) []string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// goFieldStrings renders a decoded instruction's fields by header path, as C prints them.
func goFieldStrings(inst Inst) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			t := v.Type()
			for k := 0; k < v.NumField(); k++ {
				name := t.Field(k).Name
				if name == "Raw" || name == "Bytes" {
					continue
				}
				p := prefix + snake(name)
				if name == "Header" {
					p = ""
				} else if v.Field(k).Kind() == reflect.Struct {
					p += "."
				}
				walk(p, v.Field(k))
			}
		case reflect.Array:
			for k := 0; k < v.Len(); k++ {
				walk(fmt.Sprintf("%s[%d]", prefix, k), v.Index(k))
			}
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out[prefix] = strconv.FormatInt(v.Int(), 10)
		default:
			out[prefix] = strconv.FormatUint(v.Uint(), 10)
		}
	}
	walk("", reflect.ValueOf(inst).Elem())
	return out
}

// fillGo sets every leaf of a Go instruction struct to a distinct pattern value.
func fillGo(inst Inst, seed uint64) {
	k := seed
	var walk func(v reflect.Value, name string)
	walk = func(v reflect.Value, name string) {
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				n := v.Type().Field(i).Name
				if n == "Raw" || n == "Bytes" {
					continue
				}
				walk(v.Field(i), n)
			}
		case reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), name)
			}
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			k++
			v.SetInt(int64(k*0x9E3779B97F4A7C15 ^ k<<31))
		default:
			k++
			v.SetUint(k*0x9E3779B97F4A7C15 ^ k<<31)
		}
	}
	walk(reflect.ValueOf(inst).Elem(), "")
}

func newInst(k StructKind) Inst {
	var w [64]byte
	w[0] = byte(kindOpcode[k])
	i, _ := Decode(w[:])
	return i
}

func parseOracleFields(lines []string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, l := range lines {
		name, kv, _ := strings.Cut(l, " ")
		p, v, _ := strings.Cut(kv, "=")
		if out[name] == nil {
			out[name] = map[string]string{}
		}
		out[name][p] = v
	}
	return out
}

func compareFields(t *testing.T, what, name string, c, g map[string]string) {
	t.Helper()
	for p, cv := range c {
		gv, ok := g[p]
		if !ok {
			if name == "DMA_DIRECT2D_XPOSE" && strings.HasPrefix(p, "unknown") {
				continue // kept raw in Go
			}
			t.Errorf("%s %s: C field %s has no Go field", what, name, p)
			continue
		}
		if gv != cv {
			t.Errorf("%s %s: %s: C %s, Go %s", what, name, p, cv, gv)
		}
	}
	for p := range g {
		if _, ok := c[p]; !ok {
			t.Errorf("%s %s: Go field %s not printed by C", what, name, p)
		}
	}
}

func TestGCCOracle(t *testing.T) {
	bin := buildOracle(t)

	t.Run("layout", func(t *testing.T) {
		seen := map[StructKind]map[int]bool{}
		for _, line := range runOracle(t, bin, nil, "layout") {
			f := strings.Fields(line)
			if f[1] == "sizeof" {
				want := "64"
				if f[0] == "TENSOR4D" {
					want = "20"
				}
				if f[2] != want {
					t.Errorf("%s: sizeof %s, want %s", f[0], f[2], want)
				}
				continue
			}
			k := oracleKinds[f[0]]
			l := Layout(k)
			off, _ := strconv.Atoi(f[2])
			size, _ := strconv.Atoi(f[3])
			if got := l.Offset(f[1]); got != off {
				t.Errorf("%s.%s: C offset %d, Go layout %d", f[0], f[1], off, got)
			}
			p, _ := splitIndex(f[1])
			if fl, ok := l.Field(p); ok {
				if fl.Size != size {
					t.Errorf("%s.%s: C size %d, Go %d", f[0], f[1], size, fl.Size)
				}
			} else if size != 1 {
				t.Errorf("%s.%s: a bitfield group must be one byte, C says %d", f[0], f[1], size)
			}
			if seen[k] == nil {
				seen[k] = map[int]bool{}
			}
			for b := off; b < off+size; b++ {
				seen[k][b] = true
			}
		}
		for name, k := range oracleKinds {
			if len(seen[k]) != 64 {
				t.Errorf("%s: C fields cover %d of 64 bytes", name, len(seen[k]))
			}
		}
	})

	t.Run("C fills, Go decodes", func(t *testing.T) {
		filled := runOracle(t, bin, nil, "fill")
		cf := parseOracleFields(runOracle(t, bin, []byte(strings.Join(filled, "\n")+"\n"), "parse"))
		for _, line := range filled {
			name, hx, _ := strings.Cut(line, " ")
			b, _ := hex.DecodeString(hx)
			inst, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			compareFields(t, "C->Go", name, cf[name], goFieldStrings(inst))
			if w := Encode(inst); !bytes.Equal(w[:], b) {
				t.Errorf("%s: Go re-encode of the C bytes differs", name)
			}
		}
	})

	t.Run("Go encodes, C reads", func(t *testing.T) {
		var in bytes.Buffer
		want := map[string]map[string]string{}
		for name, k := range oracleKinds {
			inst := newInst(k)
			fillGo(inst, uint64(k)*100)
			reflect.ValueOf(inst).Elem().FieldByName("Header").FieldByName("Opcode").SetUint(uint64(kindOpcode[k]))
			w := Encode(inst)
			fmt.Fprintf(&in, "%s %x\n", name, w)
			want[name] = goFieldStrings(inst)
		}
		cf := parseOracleFields(runOracle(t, bin, in.Bytes(), "parse"))
		for name := range oracleKinds {
			compareFields(t, "Go->C", name, cf[name], want[name])
		}
	})

	t.Run("bitfields", func(t *testing.T) {
		get := func(k StructKind, path string, b byte) uint64 {
			f, ok := Layout(k).Field(path)
			if !ok {
				t.Fatalf("no field %s", path)
			}
			var w [64]byte
			w[f.Offset] = b
			return f.Get(&w, 0)
		}
		sc := bufio.NewScanner(bytes.NewReader([]byte(strings.Join(runOracle(t, bin, nil, "bits"), "\n"))))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			bv, _ := strconv.Atoi(f[0])
			b := byte(bv)
			var got []uint64
			switch f[1] {
			case "dma_configs":
				got = []uint64{uint64(DMAConfigs(b).PriorityClass()), uint64(DMAConfigs(b).Reserved())}
				if get(StructDMA_DIRECT2D, "dma_configs.priority_class", b) != got[0] || get(StructDMA_DIRECT2D, "dma_configs.reserved", b) != got[1] {
					t.Errorf("dma_configs layout bits disagree at %d", b)
				}
			case "bound_check_reg":
				r := BoundCheckReg(b)
				got = []uint64{uint64(r.Reg()), b2u(r.DisableOOBErrorNotif()), b2u(r.Enabled())}
				if get(StructDMA_DIRECT2D, "src_bound_reg.bc_reg", b) != got[0] || get(StructDMA_DIRECT2D, "src_bound_reg.bc_enabled", b) != got[2] {
					t.Errorf("bound reg layout bits disagree at %d", b)
				}
			case "dma_indirect_flags":
				x := DMAIndirectFlags(b)
				got = []uint64{uint64(x.IndirectMode()), b2u(x.IdxBoundIsErr()), b2u(x.NonUniqueDstIdx()), uint64(x.GatherDim()), uint64(x.ScatterDim())}
				if get(StructDMA_INDIRECT1D, "flags.gather_dim", b) != got[3] || get(StructDMA_INDIRECT1D, "flags.scatter_dim", b) != got[4] {
					t.Errorf("indirect flags layout bits disagree at %d", b)
				}
			case "dtype_pair":
				got = []uint64{uint64(DTypePair(b).Lo()), uint64(DTypePair(b).Hi())}
				if get(StructDMA_GATHER_XPOSE, "dtype.dtype_lo", b) != got[0] || get(StructDMA_GATHER_XPOSE, "dtype.dtype_hi", b) != got[1] {
					t.Errorf("dtype pair layout bits disagree at %d", b)
				}
			case "gather_transpose_flags":
				got = []uint64{uint64(GatherTransposeFlags(b).GatherDim()), uint64(GatherTransposeFlags(b).Reserved())}
			}
			for i, g := range got {
				if c, _ := strconv.ParseUint(f[2+i], 10, 64); c != g {
					t.Errorf("byte %d %s field %d: C %d, Go %d", b, f[1], i, c, g)
				}
			}
		}
	})
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
