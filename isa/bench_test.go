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

func BenchmarkDecodeValidate(b *testing.B) {
	s := benchStream(benchWords)
	var d Decoder
	var vs []Violation
	var x Validator
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for off := 0; off < len(s); off += 64 {
			i, _ := d.Decode(s[off : off+64])
			vs = x.Append(vs[:0], i, CAYMAN)
		}
	}
	b.ReportMetric(float64(benchWords)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
}

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
	var d Decoder
	var vs []Violation
	var x Validator
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for off := 0; off < len(s); off += 64 {
			i, _ := d.Decode(s[off : off+64])
			vs = x.Append(vs[:0], i, CAYMAN)
		}
	}
	b.ReportMetric(float64(benchWords)*float64(b.N)/b.Elapsed().Seconds(), "words/s")
}

func TestDecodeValidateAllocs(t *testing.T) {
	w := Encode(s4base(OpSTREAM_TRANSPOSE))
	var d Decoder
	var vs []Violation
	var x Validator
	n := testing.AllocsPerRun(100, func() {
		i, _ := d.Decode(w[:])
		vs = x.Append(vs[:0], i, CAYMAN)
	})
	if n != 0 {
		t.Errorf("decode+validate of a valid word allocates %v times", n)
	}
}
