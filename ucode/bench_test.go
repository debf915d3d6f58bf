package ucode

import "testing"

// BenchmarkParseCensus parses a 16 KiB gen4 datapath table and takes its census; the copy
// sub-benchmark is the memory-bandwidth baseline measured in the same run.
func BenchmarkParseCensus(b *testing.B) {
	data := mustFixture(b, "gen4/default").Datapath.Bytes()
	b.Run("copy", func(b *testing.B) {
		dst := make([]byte, len(data))
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			copy(dst, data)
		}
	})
	b.Run("parse+census", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			s, err := ParseTables("b", map[Table]RawTable{TableDatapath: {Data: data}}, GenUnknown)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Census(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
