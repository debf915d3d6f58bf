package isa

import (
	"math/rand"
	"testing"
)

// benchStream is n words: a mix of valid S4D4_TR, DMA, MEMSET and mask words with about one
// random (invalid, several violations each) S4D4_TR word in 32.
func benchStream(n int) []byte {
	r := rand.New(rand.NewSource(9))
	var words [][64]byte
	for _, op := range S4D4TROpcodes(CAYMAN) {
		words = append(words, Encode(s4base(op)))
	}
	for _, b := range bases() {
		words = append(words, Encode(b()))
	}
	out := make([]byte, 0, n*64)
	for k := 0; k < n; k++ {
		w := words[r.Intn(len(words))]
		if r.Intn(32) == 0 {
			r.Read(w[:])
			w[0] = byte(OpSTREAM_TRANSPOSE)
		}
		out = append(out, w[:]...)
	}
	return out
}

const benchWords = 1 << 20

var sink Inst

func BenchmarkCopyBaseline(b *testing.B) {
	s := benchStream(benchWords)
	dst := make([]byte, len(s))
	b.SetBytes(int64(len(s)))
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		copy(dst, s)
	}
	b.ReportMetric(float64(benchWords)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkDecode(b *testing.B) {
	s := benchStream(benchWords)
	var d Decoder
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for off := 0; off < len(s); off += 64 {
			sink, _ = d.Decode(s[off : off+64])
		}
	}
	b.ReportMetric(float64(benchWords)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkDecodeAlloc(b *testing.B) {
	s := benchStream(benchWords / 16)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for off := 0; off < len(s); off += 64 {
			sink, _ = Decode(s[off : off+64])
		}
	}
	b.ReportMetric(float64(benchWords/16)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
}

func BenchmarkEncode(b *testing.B) {
	s := benchStream(benchWords)
	insts, _ := DecodeStream(s)
	var w [64]byte
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for _, i := range insts {
			EncodeTo(&w, i)
		}
	}
	b.ReportMetric(float64(benchWords)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
}

// benchValidate decodes and validates stream s (one op = the whole stream) with a reused
// Decoder, Validator and violation slice, and reports words/s and violations per word.
func benchValidate(b *testing.B, s []byte) {
	words := len(s) / 64
	var d Decoder
	var vs []Violation
	var x Validator
	nv := 0
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		nv = 0
		for off := 0; off < len(s); off += 64 {
			i, _ := d.Decode(s[off : off+64])
			vs = x.Append(vs[:0], i, CAYMAN)
			nv += len(vs)
		}
	}
	b.ReportMetric(float64(words)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
	b.ReportMetric(float64(nv)/float64(words), "violations/word")
}

// BenchmarkDecodeValidate is the mixed stream of benchStream (1 word in 32 random, invalid).
func BenchmarkDecodeValidate(b *testing.B) { benchValidate(b, benchStream(benchWords)) }

// invalidStream is n words, every one invalid on CAYMAN in the way a buggy emitter breaks
// them: a valid word (every modelled struct) with one field byte (not the opcode) overwritten.
func invalidStream(n int) []byte {
	r := rand.New(rand.NewSource(10))
	var words [][64]byte
	for _, op := range S4D4TROpcodes(CAYMAN) {
		words = append(words, Encode(s4base(op)))
	}
	for _, name := range []string{"d2", "di", "dx", "gx", "lms", "memset"} {
		words = append(words, Encode(bases()[name]()))
	}
	var d Decoder
	out := make([]byte, 0, n*64)
	for len(out) < n*64 {
		w := words[r.Intn(len(words))]
		w[1+r.Intn(63)] = byte(r.Intn(256))
		if i, _ := d.Decode(w[:]); len(Validate(i, CAYMAN)) == 0 {
			continue
		}
		out = append(out, w[:]...)
	}
	return out
}

// BenchmarkDecodeValidateInvalid is an all-invalid stream (one corrupted field per word).
func BenchmarkDecodeValidateInvalid(b *testing.B) { benchValidate(b, invalidStream(benchWords/4)) }

// BenchmarkDecodeValidateValid is the all-valid stream (the common case for a compiler's output).
func BenchmarkDecodeValidateValid(b *testing.B) {
	var words [][64]byte
	for _, op := range S4D4TROpcodes(CAYMAN) {
		words = append(words, Encode(s4base(op)))
	}
	for _, bb := range bases() {
		words = append(words, Encode(bb()))
	}
	s := make([]byte, 0, benchWords*64)
	for k := 0; k < benchWords; k++ {
		w := words[k%len(words)]
		s = append(s, w[:]...)
	}
	benchValidate(b, s)
}

func TestDecodeValidateAllocs(t *testing.T) {
	words := map[string][64]byte{"STREAM_TRANSPOSE": Encode(s4base(OpSTREAM_TRANSPOSE)), "COPY": Encode(s4base(OpCOPY))}
	for name, b := range bases() {
		words[name] = Encode(b())
	}
	for name, w := range words {
		t.Run(name, func(t *testing.T) {
			var d Decoder
			var vs []Violation
			var x Validator
			n := testing.AllocsPerRun(100, func() {
				i, _ := d.Decode(w[:])
				vs = x.Append(vs[:0], i, CAYMAN)
			})
			if len(vs) != 0 {
				t.Fatalf("the valid base is invalid: %v", vs)
			}
			if n != 0 {
				t.Errorf("decode+validate of a valid word allocates %v times", n)
			}
		})
	}
}
