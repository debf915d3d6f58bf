package isa

import (
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

// The gcc oracle: the C definitions generated from the wire spec (testdata/isa/oracle/
// tpb_structs.h, from isa/internal/wirespec, whose offsets are the seed's), compiled at test
// time. gcc lays the structs out by its own rules; the test checks sizeof and every offset
// against isa.Layout, the bytes of filled structs in both directions (C-filled bytes decoded
// by Go, Go-encoded bytes read by C) and every bitfield byte. Skipped when gcc is absent.

// oracleKinds are the struct kinds the oracle knows, by the name it prints (StructKind.String).
var oracleKinds = func() map[string]StructKind {
	m := map[string]StructKind{}
	for _, k := range StructKinds {
		m[k.String()] = k
	}
	return m
}()

// kindOpcode is an opcode that binds struct kind k (the lowest).
func kindOpcode(k StructKind) Opcode {
	for _, op := range AllOpcodes {
		if op.Struct() == k {
			return op
		}
	}
	return 0
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
	w[0] = byte(kindOpcode(k))
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
			if got := Opcode(b[0]).Struct(); got != oracleKinds[name] {
				t.Errorf("%s: the spec's opcode 0x%02x binds %v in the opcode table", name, b[0], got)
			}
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
			reflect.ValueOf(inst).Elem().FieldByName("Header").FieldByName("Opcode").SetUint(uint64(kindOpcode(k)))
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
		types := map[string]bitfieldType{}
		for _, bt := range bitfieldTypes {
			types[bt.Name] = bt
		}
		seen := map[string]int{}
		for _, line := range runOracle(t, bin, nil, "bits") {
			f := strings.Fields(line)
			bv, _ := strconv.Atoi(f[0])
			w := [64]byte{byte(bv)}
			bt, ok := types[f[1]]
			if !ok || len(f)-2 != len(bt.Fields) {
				t.Fatalf("oracle bits: %q: no Go bitfield type of that name and shape", line)
			}
			seen[f[1]]++
			c := map[string]uint64{}
			for k, kv := range f[2:] {
				name, v, _ := strings.Cut(kv, "=")
				cv, _ := strconv.ParseUint(v, 10, 64)
				c[name] = cv
				if fl := bt.Fields[k]; fl.Path != name || fl.Get(&w, 0) != cv {
					t.Errorf("%s byte %d: C %s=%d, Go table %s=%d", f[1], bv, name, cv, fl.Path, fl.Get(&w, 0))
				}
			}
			if acc := bitAccessors(byte(bv), f[1]); acc != nil {
				for name, g := range acc {
					if c[name] != g {
						t.Errorf("%s byte %d: C %s=%d, Go accessor %d", f[1], bv, name, c[name], g)
					}
				}
			} else {
				t.Errorf("no accessor check for %s", f[1])
			}
		}
		for _, bt := range bitfieldTypes {
			if seen[bt.Name] != 256 {
				t.Errorf("%s: the oracle printed %d bytes, want 256", bt.Name, seen[bt.Name])
			}
		}
	})
}

// bitAccessors reads byte b through the Go accessor methods of bitfield type name, by subfield.
func bitAccessors(b byte, name string) map[string]uint64 {
	switch name {
	case "DMA_CONFIGS":
		x := DMAConfigs(b)
		return map[string]uint64{"priority_class": uint64(x.PriorityClass()), "reserved": uint64(x.Reserved())}
	case "BOUND_CHECK_REG":
		x := BoundCheckReg(b)
		return map[string]uint64{"bc_reg": uint64(x.Reg()), "bc_disable_oob_error_notif": b2u(x.DisableOOBErrorNotif()), "bc_enabled": b2u(x.Enabled())}
	case "DMA_INDIRECT_FLAGS":
		x := DMAIndirectFlags(b)
		return map[string]uint64{"indirect_mode": uint64(x.IndirectMode()), "idx_bound_is_err": b2u(x.IdxBoundIsErr()),
			"non_unique_dst_idx": b2u(x.NonUniqueDstIdx()), "gather_dim": uint64(x.GatherDim()), "scatter_dim": uint64(x.ScatterDim())}
	case "DTYPE_PAIR":
		x := DTypePair(b)
		return map[string]uint64{"dtype_lo": uint64(x.Lo()), "dtype_hi": uint64(x.Hi())}
	case "GATHER_TRANSPOSE_FLAGS":
		x := GatherTransposeFlags(b)
		return map[string]uint64{"gather_dim": uint64(x.GatherDim()), "reserved": uint64(x.Reserved())}
	}
	return nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
