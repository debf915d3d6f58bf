package isa

import (
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The goldens under testdata/isa are kept by hand and never regenerated from the code. This
// file holds them to the gcc oracle, which reads the bytes with its own layout: every golden
// word decodes in C as in Go, and every line of disasm.txt says what C reads in its word.

// goldenWords reads the words of a golden file (`HEX<TAB>...` lines) with the rest of each line.
func goldenWords(t *testing.T, path string) (words [][64]byte, rest []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for ln, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hx, r, _ := strings.Cut(line, "\t")
		b, err := hex.DecodeString(hx)
		if err != nil || len(b) != 64 {
			t.Fatalf("%s:%d: malformed word", path, ln+1)
		}
		words = append(words, [64]byte(b))
		rest = append(rest, r)
	}
	return words, rest
}

// oracleRead has the oracle parse each word as the struct its opcode binds (words of opcodes
// without a modelled struct as S4D4_TR, whose header and events every word shares); result k
// is word k's field values by C path.
func oracleRead(t *testing.T, bin string, words [][64]byte) []map[string]string {
	t.Helper()
	var in strings.Builder
	for _, w := range words {
		name := Opcode(w[0]).Struct().String()
		if Opcode(w[0]).Struct() == StructNone {
			name = StructS4D4_TR.String()
		}
		fmt.Fprintf(&in, "%s %x\n", name, w)
	}
	lines := runOracle(t, bin, []byte(in.String()), "parse")
	out := make([]map[string]string, 0, len(words))
	var cur map[string]string
	for _, l := range lines {
		_, kv, _ := strings.Cut(l, " ")
		p, v, _ := strings.Cut(kv, "=")
		if p == "opcode" {
			cur = map[string]string{}
			out = append(out, cur)
		}
		cur[p] = v
	}
	if len(out) != len(words) {
		t.Fatalf("oracle read %d words of %d", len(out), len(words))
	}
	return out
}

// TestGoldenWordsDecodeAsC: every word of the goldens decodes in Go to the field values gcc's
// layout gives (words of opcodes without a struct: their header and events).
func TestGoldenWordsDecodeAsC(t *testing.T) {
	bin := buildOracle(t)
	for _, file := range []string{"rules.txt", "rules_hand.txt", "disasm.txt"} {
		t.Run(file, func(t *testing.T) {
			words, _ := goldenWords(t, "../testdata/isa/"+file)
			cs := oracleRead(t, bin, words)
			for k, w := range words {
				inst, _ := Decode(w[:])
				g := goFieldStrings(inst)
				for p, cv := range cs[k] {
					gv, ok := g[p]
					if Opcode(w[0]).Struct() == StructNone && !ok {
						continue // C read a struct the word does not have beyond its header
					}
					if strings.HasPrefix(p, "unknown") && !ok {
						continue // kept raw in Go
					}
					if gv != cv {
						t.Errorf("word %d (%x): %s: C %s, Go %s", k, w[:4], p, cv, gv)
					}
				}
			}
		})
	}
}

// bitPositions are the bitfields of FACTS §A.1, §C.3, §C.4, §C.6 (LSB first), by struct kind
// and the path disasm prints: [shift, width].
var bitPositions = map[string][2]uint{
	"dma_configs.priority_class": {0, 3}, "dma_configs.reserved": {3, 5},
	"bc_reg": {0, 6}, "bc_disable_oob_error_notif": {6, 1}, "bc_enabled": {7, 1},
	"DMA_INDIRECT1D flags.indirect_mode": {0, 2}, "DMA_INDIRECT1D flags.idx_bound_is_err": {2, 1},
	"DMA_INDIRECT1D flags.non_unique_dst_idx": {3, 1}, "DMA_INDIRECT1D flags.gather_dim": {4, 2},
	"DMA_INDIRECT1D flags.scatter_dim":  {6, 2},
	"DMA_GATHER_XPOSE flags.gather_dim": {0, 2}, "DMA_GATHER_XPOSE flags.reserved": {2, 6},
	"dtype.dtype_lo": {0, 4}, "dtype.dtype_hi": {4, 4},
}

// enumOf names the enum a printed key's value belongs to.
func enumOf(key string) ValueKind {
	switch key {
	case "in_dtype", "out_dtype", "dtype", "dtype.dtype_lo", "dtype.dtype_hi":
		return KDType
	case "op":
		return KALUOp
	case "op_dim":
		return KSubdim
	case "wait_mode":
		return KWaitMode
	case "update_mode":
		return KUpdateMode
	case "compute_op":
		return KComputeOp
	case "flags.indirect_mode":
		return KIndirectMode
	case "flags.gather_dim", "flags.scatter_dim":
		return KIndirectDim
	}
	return KBlob
}

// CAYMAN's address map (FACTS §B.5, tpbsim's DMA window isa.addr8_address_map), written out
// apart from the code that formats addresses.
const (
	caymanSBUFStride = 256 << 10
	caymanPSUMStride = 32 << 10
	caymanPSUMBase   = 0x2000000
	dmaLocalBase     = 1 << 47
)

// textAddress reads an address as disasm prints it; addr8 selects the DMA (ADDR8) encoding.
func textAddress(s string, addr8 bool) (uint64, error) {
	parts := strings.Split(s, ":")
	num := func(x string) uint64 { v, _ := strconv.ParseUint(x, 0, 64); return v }
	local := uint64(0)
	if addr8 {
		local = dmaLocalBase
	}
	switch parts[0] {
	case "sbuf":
		return local + num(parts[1])*caymanSBUFStride + num(parts[2]), nil
	case "psum":
		return local + caymanPSUMBase + num(parts[1])*caymanPSUMStride + num(parts[2]), nil
	case "hbm":
		return num(parts[1]), nil
	case "reg":
		if addr8 {
			return 0x80<<56 | num(parts[1]), nil
		}
		return 0x80<<24 | num(parts[1]), nil
	}
	return strconv.ParseUint(s, 0, 64)
}

// textValue reads one printed scalar of key.
func textValue(key, s string) (string, error) {
	base := key[strings.LastIndexByte(key, '.')+1:]
	if k := enumOf(key); k != KBlob && (s[0] < '0' || s[0] > '9') {
		for c := uint64(0); c < 256; c++ {
			if n, ok := EnumName(k, c); ok && n == s {
				return strconv.FormatUint(c, 10), nil
			}
		}
		return "", fmt.Errorf("%s: no %v named %s", key, k, s)
	}
	if strings.HasSuffix(base, "start_addr") {
		v, err := textAddress(s, !strings.Contains(key, "idx") && !strings.Contains(key, "_pattern."))
		return strconv.FormatUint(v, 10), err
	}
	if strings.HasPrefix(s, "-") {
		v, err := strconv.ParseInt(s, 10, 64)
		return strconv.FormatInt(v, 10), err
	}
	v, err := strconv.ParseUint(s, 0, 64)
	return strconv.FormatUint(v, 10), err
}

// disasmClaims turns one disasm line into C paths and the values it says they hold.
func disasmClaims(kind StructKind, text string) (map[string]string, error) {
	toks := strings.Fields(text)
	claims := map[string]string{}
	bits := map[string]uint64{} // bitfield byte (C path) -> value built from its subfields
	for _, tok := range toks[1:] {
		key, val, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, fmt.Errorf("token %q", tok)
		}
		switch key {
		case "wait_mode", "wait_idx", "update_mode", "update_idx", "semaphore_value":
			v, err := textValue(key, val)
			claims["events."+key] = v
			if err != nil {
				return nil, err
			}
			continue
		}
		if pos, ok := bitPositions[kind.String()+" "+key]; ok || strings.Contains(key, ".") && !strings.HasSuffix(key, "]") {
			parent, sub, _ := strings.Cut(key, ".")
			if !ok {
				pos, ok = bitPositions[key]
			}
			if !ok {
				pos, ok = bitPositions[sub]
			}
			if !ok {
				return nil, fmt.Errorf("no bitfield %s", key)
			}
			v, err := textValue(key, val)
			if err != nil {
				return nil, err
			}
			n, _ := strconv.ParseUint(v, 10, 64)
			bits[parent] |= n << pos[0]
			continue
		}
		if i := strings.IndexByte(val, '['); i >= 0 && strings.HasSuffix(key, "_pattern") {
			a, err := textAddress(val[:i], false)
			if err != nil {
				return nil, err
			}
			claims[key+".start_addr"] = strconv.FormatUint(a, 10)
			dims := strings.Split(strings.Trim(val[i:], "[]"), ",")
			for d := 0; d < 4; d++ {
				n, s := "1", "1"
				if d < len(dims) {
					n, s, _ = strings.Cut(dims[d], "@")
					if s == "" {
						s = "1"
					}
				}
				claims[fmt.Sprintf("%s.num_elem[%d]", key, d)] = n
				claims[fmt.Sprintf("%s.step_elem[%d]", key, d)] = s
			}
			continue
		}
		if strings.HasSuffix(key, "_pattern") {
			return nil, fmt.Errorf("pattern %s without dims", tok)
		}
		if strings.HasPrefix(key, "unknown") || key == "payload" {
			b, err := hex.DecodeString(val)
			if err != nil {
				return nil, err
			}
			for i, x := range b {
				claims[fmt.Sprintf("%s[%d]", key, i)] = strconv.Itoa(int(x))
			}
			claims[key+"#len"] = strconv.Itoa(len(b))
			if len(b) == 1 {
				claims[key] = strconv.Itoa(int(b[0])) // a one-byte blob is a scalar in C
			}
			continue
		}
		if strings.HasPrefix(val, "[") {
			for i, x := range strings.Split(strings.Trim(val, "[]"), ",") {
				v, err := textValue(key, x)
				if err != nil {
					return nil, err
				}
				claims[fmt.Sprintf("%s[%d]", key, i)] = v
			}
			continue
		}
		v, err := textValue(key, val)
		if err != nil {
			return nil, err
		}
		claims[key] = v
	}
	for p, v := range bits {
		claims[p] = strconv.FormatUint(v, 10)
	}
	return claims, nil
}

// TestGoldenDisasmSaysWhatCReads: each line of testdata/isa/disasm.txt, read by the rules of
// the text form (DESIGN.md §7) apart from the assembler, names the values gcc reads in its word;
// every field it leaves out is 0 (inst_word_len 16), and a payload's hex is the word's bytes.
func TestGoldenDisasmSaysWhatCReads(t *testing.T) {
	bin := buildOracle(t)
	words, texts := goldenWords(t, "../testdata/isa/disasm.txt")
	cs := oracleRead(t, bin, words)
	for k, w := range words {
		t.Run(fmt.Sprintf("word%d", k), func(t *testing.T) { disasmSaysWhatCReads(t, k, w, texts[k], cs[k]) })
	}
	if len(words) < 100 {
		t.Errorf("only %d lines", len(words))
	}
}

// disasmSaysWhatCReads checks disasm.txt's line text for word k against C's field values c.
func disasmSaysWhatCReads(t *testing.T, k int, w [64]byte, text string, cread map[string]string) {
	kind := Opcode(w[0]).Struct()
	claims, err := disasmClaims(kind, text)
	if err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	op := strings.Fields(text)[0]
	if n, err := strconv.ParseUint(op, 0, 8); err == nil {
		if n != uint64(w[0]) || Opcode(w[0]).Known() {
			t.Errorf("word %d: opcode %s for byte 0x%02x", k, op, w[0])
		}
	} else if c, _ := textValue("opcode", strconv.Itoa(int(w[0]))); op != Opcode(w[0]).String() || c != cread["opcode"] {
		t.Errorf("word %d: opcode %s for byte 0x%02x", k, op, w[0])
	}
	if kind == StructNone {
		n, _ := strconv.Atoi(claims["payload#len"])
		trimmed := 52
		for trimmed > 0 && w[12+trimmed-1] == 0 {
			trimmed--
		}
		for i := 0; i < 52; i++ {
			want := "0"
			if v, ok := claims[fmt.Sprintf("payload[%d]", i)]; ok {
				want = v
			}
			if want != strconv.Itoa(int(w[12+i])) || n > 52 || n < trimmed {
				t.Errorf("word %d: payload byte %d: text %s, word %d", k, i, want, w[12+i])
				break
			}
		}
	}
	for p, cv := range cread {
		if kind == StructNone && !strings.HasPrefix(p, "events.") && p != "inst_word_len" && p != "debug_cmd" && p != "debug_hint" {
			continue // beyond the header and events of a word without a struct
		}
		if p == "opcode" {
			continue
		}
		want, ok := claims[p]
		if !ok {
			want = "0"
			if p == "inst_word_len" {
				want = "16"
			}
		}
		if want != cv {
			t.Errorf("word %d (%s): %s: the text says %s, C reads %s", k, op, p, want, cv)
		}
	}
}
