package demo

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// WriteTileMap draws, for the first 32x32 tile, where each destination cell's data came from,
// read back from tag tiles the machine moved (Result.TagT, Result.TagS: Channels x Elems
// uint16 tags channel<<8 | element): per destination channel c, the source channel of each
// element e = 0..31 as a base-32 digit, and the source element (one number when the whole row
// came from one source element). titles head the two tiles.
func WriteTileMap(w io.Writer, titles [2]string, tiles [2][]byte) {
	const digits = "0123456789abcdefghijklmnopqrstuv"
	fmt.Fprintf(w, "what moved where, first 32x32 tile: dst (channel c, element e) <- src (channel, element)\n")
	fmt.Fprintf(w, "base-32 digits (a=10 ... v=31); '.' = channel left untouched (mask entry 0xFF)\n\n")
	fmt.Fprintf(w, "       %-43s %s\n", titles[0], titles[1])
	fmt.Fprintf(w, "  dst  %-32s %-9s %-32s %s\n", "src channel for e = 0..31", "src elem", "src channel for e = 0..31", "src elem")
	digit := func(v int) byte {
		if v >= 0 && v < len(digits) {
			return digits[v]
		}
		return '?'
	}
	for c := 0; c < 32; c++ {
		var line strings.Builder
		fmt.Fprintf(&line, "  c=%-2d", c)
		for k, tags := range tiles {
			var ch, el strings.Builder
			elems := map[int]bool{}
			for e := 0; e < 32; e++ {
				at := (c*Elems + e) * 2
				if at+2 > len(tags) {
					ch.WriteByte('?')
					el.WriteByte('?')
					continue
				}
				v := binary.LittleEndian.Uint16(tags[at:])
				if v == 0xFFFF {
					ch.WriteByte('.')
					el.WriteByte('.')
					continue
				}
				ch.WriteByte(digit(int(v >> 8)))
				el.WriteByte(digit(int(v & 0xFF)))
				elems[int(v&0xFF)] = true
			}
			elem := el.String()
			if len(elems) == 1 {
				for e := range elems {
					elem = fmt.Sprint(e)
				}
			} else if len(elems) == 0 {
				elem = "-"
			}
			sep := ""
			if k == 0 {
				sep = " "
			}
			fmt.Fprintf(&line, " %s %-9s%s", ch.String(), elem, sep)
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
}
