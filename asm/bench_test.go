package asm

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// BenchmarkParseProgram assembles a two-queue source of 4,000 lines (enum names, addresses,
// patterns on every line), reporting lines/s. The per-kind enum-name index (enumCodes) took it
// from ~45 us to ~4 us a line.
func BenchmarkParseProgram(b *testing.B) {
	var src strings.Builder
	src.WriteString(".gen CAYMAN\n.engine DVE\n")
	for i := 0; i < 2000; i++ {
		src.WriteString("STREAM_TRANSPOSE nac=128 in=bf16 out=bf16 src=sbuf:0:0[64@1] dst=sbuf:0:0x1000[64@1]\n")
	}
	src.WriteString(".engine ACT\n")
	for i := 0; i < 2000; i++ {
		src.WriteString("COPY nac=128 in=FP32 out=FP32 op=BYPASS src=sbuf:0:0x2000[64@1] dst=sbuf:0:0x3000[64@1]\n")
	}
	data := []byte(src.String())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseProgram("bench.tpb", data, isa.CAYMAN); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(4000*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
