package num

import (
	"encoding/binary"
	"sync"
)

// wideTableMinElems is the smallest n for which a 16-bit source is cast through a 64K-entry
// table: building one converts every code once, which costs about as much as converting this
// many elements, and after that the table serves every call of its pair.
const wideTableMinElems = 1 << 16

// wideTable holds what each of the 65536 codes of a 16-bit kind becomes in an 8-, 16- or 32-bit
// kind (64, 128 or 256 KiB). It is built by convertPair on the first call that wants it and never written
// after, so any number of goroutines may share it.
type wideTable struct {
	once sync.Once
	t8   []uint8
	t16  []uint16
	t32  []uint32
}

// wideTables is the cache of wideTable, by source (BF16, FP16, INT16, UINT16) and destination.
// It is the package's one piece of state written after initialisation: a cache of a pure
// function, filled once per pair under sync.Once.
var wideTables [4][numKinds]wideTable

// wideTableFor returns the table of the pair, building it first if needed, when it applies: a
// 16-bit source, an 8-, 16- or 32-bit destination of another kind other than FP32 and FP32R
// (whose loops are faster), and n >= wideTableMinElems.
func wideTableFor(dk, sk Kind, n int) *wideTable {
	if n < wideTableMinElems || dk == sk || dk == FP32 || dk == FP32R ||
		(dk.SizeBits() != 8 && dk.SizeBits() != 16 && dk.SizeBits() != 32) {
		return nil
	}
	var si int
	switch sk {
	case BFLOAT16:
		si = 0
	case FP16:
		si = 1
	case INT16:
		si = 2
	case UINT16:
		si = 3
	default:
		return nil
	}
	w := &wideTables[si][dk]
	w.once.Do(func() {
		codes := make([]byte, 2<<16)
		for c := 0; c < 1<<16; c++ {
			binary.LittleEndian.PutUint16(codes[2*c:], uint16(c))
		}
		out := make([]byte, dk.Size()<<16)
		convertPair(out, dk, codes, sk, 1<<16)
		switch dk.Size() {
		case 1:
			w.t8 = out
		case 2:
			w.t16 = make([]uint16, 1<<16)
			for c := range w.t16 {
				w.t16[c] = binary.LittleEndian.Uint16(out[2*c:])
			}
		case 4:
			w.t32 = make([]uint32, 1<<16)
			for c := range w.t32 {
				w.t32[c] = binary.LittleEndian.Uint32(out[4*c:])
			}
		}
	})
	return w
}

// convert looks n 16-bit codes of s up, four at a time.
func (w *wideTable) convert(d, s []byte, n int) {
	s = s[:2*n]
	if w.t8 != nil {
		t := (*[1 << 16]uint8)(w.t8)
		d = d[:n]
		for len(s) >= 8 && len(d) >= 4 {
			x := binary.LittleEndian.Uint64(s)
			binary.LittleEndian.PutUint32(d, uint32(t[uint16(x)])|uint32(t[uint16(x>>16)])<<8|
				uint32(t[uint16(x>>32)])<<16|uint32(t[uint16(x>>48)])<<24)
			s, d = s[8:], d[4:]
		}
		for i := range d {
			d[i] = t[binary.LittleEndian.Uint16(s[2*i:])]
		}
		return
	}
	if w.t32 != nil {
		t := (*[1 << 16]uint32)(w.t32)
		d = d[:4*n]
		for len(s) >= 4 && len(d) >= 8 {
			x := binary.LittleEndian.Uint32(s)
			binary.LittleEndian.PutUint64(d, uint64(t[uint16(x)])|uint64(t[uint16(x>>16)])<<32)
			s, d = s[4:], d[8:]
		}
		if len(s) >= 2 && len(d) >= 4 {
			binary.LittleEndian.PutUint32(d, t[binary.LittleEndian.Uint16(s)])
		}
		return
	}
	t := (*[1 << 16]uint16)(w.t16)
	d = d[:2*n]
	for len(s) >= 8 && len(d) >= 8 {
		x := binary.LittleEndian.Uint64(s)
		binary.LittleEndian.PutUint64(d, uint64(t[uint16(x)])|uint64(t[uint16(x>>16)])<<16|
			uint64(t[uint16(x>>32)])<<32|uint64(t[uint16(x>>48)])<<48)
		s, d = s[8:], d[8:]
	}
	for len(s) >= 2 && len(d) >= 2 {
		binary.LittleEndian.PutUint16(d, t[binary.LittleEndian.Uint16(s)])
		s, d = s[2:], d[2:]
	}
}
