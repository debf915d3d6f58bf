package dma

import "unsafe"

// copyNest walks a common nest inside two slices that cover exactly the walks' byte boxes: the
// element with index (i0..i3) moves from sb[soff + sum(i_k*ss[k])] to db[doff + sum(i_k*ds[k])].
// The two inner levels pick a kernel: contiguous lines (copy), the crossbar tile (dst contiguous
// along level 0, src contiguous along level 1: a blocked transpose), or element-strided.
// The offsets are in range by construction (span), so the kernels index without checks.
func copyNest(db, sb []byte, doff, soff int64, n [MaxLevels]uint32, ds, ss [MaxLevels]int64, es int64) {
	for i3 := int64(0); i3 < int64(n[3]); i3++ {
		for i2 := int64(0); i2 < int64(n[2]); i2++ {
			d := doff + i3*ds[3] + i2*ds[2]
			s := soff + i3*ss[3] + i2*ss[2]
			copy2(db, sb, d, s, int64(n[0]), int64(n[1]), ds[0], ss[0], ds[1], ss[1], es)
		}
	}
}

func copy2(db, sb []byte, d, s, n0, n1, ds0, ss0, ds1, ss1, es int64) {
	switch {
	case ss0 == es && ds0 == es:
		ln := n0 * es
		if ds1 == ln && ss1 == ln { // the two levels are one contiguous block
			copy(db[d:d+ln*n1], sb[s:s+ln*n1])
			return
		}
		for i := int64(0); i < n1; i++ {
			copy(db[d:d+ln], sb[s:s+ln])
			d += ds1
			s += ss1
		}
	case ds0 == es && ss1 == es && n1 > 1 && (es == 2 || es == 4):
		// Crossbar tile: n0 source rows (step ss0) of n1 contiguous columns -> n1 destination rows
		// (step ds1) of n0 contiguous elements.
		dp := unsafe.Pointer(&db[0])
		sp := unsafe.Pointer(&sb[0])
		if es == 2 {
			xpose2(dp, sp, d, s, n0, n1, ss0, ds1)
		} else {
			xpose4(dp, sp, d, s, n0, n1, ss0, ds1)
		}
	default:
		dp := unsafe.Pointer(&db[0])
		sp := unsafe.Pointer(&sb[0])
		for i := int64(0); i < n1; i++ {
			strided(dp, sp, d, s, n0, ds0, ss0, es)
			d += ds1
			s += ss1
		}
	}
}

// strided moves n elements of es bytes with byte steps ds and ss.
func strided(dp, sp unsafe.Pointer, d, s, n, ds, ss, es int64) {
	switch es {
	case 1:
		for i := int64(0); i < n; i++ {
			*(*uint8)(unsafe.Add(dp, d)) = *(*uint8)(unsafe.Add(sp, s))
			d += ds
			s += ss
		}
	case 2:
		for i := int64(0); i < n; i++ {
			*(*uint16)(unsafe.Add(dp, d)) = *(*uint16)(unsafe.Add(sp, s))
			d += ds
			s += ss
		}
	case 4:
		for i := int64(0); i < n; i++ {
			*(*uint32)(unsafe.Add(dp, d)) = *(*uint32)(unsafe.Add(sp, s))
			d += ds
			s += ss
		}
	case 8:
		for i := int64(0); i < n; i++ {
			*(*uint64)(unsafe.Add(dp, d)) = *(*uint64)(unsafe.Add(sp, s))
			d += ds
			s += ss
		}
	default:
		for i := int64(0); i < n; i++ {
			copy(unsafe.Slice((*byte)(unsafe.Add(dp, d)), es), unsafe.Slice((*byte)(unsafe.Add(sp, s)), es))
			d += ds
			s += ss
		}
	}
}

// xpose2 transposes a rows x cols tile of 2-byte elements. A full 16-row tile packs each
// destination line into four 8-byte stores.
func xpose2(dp, sp unsafe.Pointer, d, s, rows, cols, ss0, ds1 int64) {
	if rows == 16 {
		for c := int64(0); c < cols; c++ {
			p := unsafe.Add(sp, s+2*c)
			var w [4]uint64
			for q := 0; q < 4; q++ {
				r := int64(4 * q)
				w[q] = uint64(*(*uint16)(unsafe.Add(p, r*ss0))) |
					uint64(*(*uint16)(unsafe.Add(p, (r+1)*ss0)))<<16 |
					uint64(*(*uint16)(unsafe.Add(p, (r+2)*ss0)))<<32 |
					uint64(*(*uint16)(unsafe.Add(p, (r+3)*ss0)))<<48
			}
			o := unsafe.Add(dp, d+c*ds1)
			*(*[4]uint64)(o) = w
		}
		return
	}
	for c := int64(0); c < cols; c++ {
		p := unsafe.Add(sp, s+2*c)
		o := unsafe.Add(dp, d+c*ds1)
		for r := int64(0); r < rows; r++ {
			*(*uint16)(unsafe.Add(o, 2*r)) = *(*uint16)(unsafe.Add(p, r*ss0))
		}
	}
}

func xpose4(dp, sp unsafe.Pointer, d, s, rows, cols, ss0, ds1 int64) {
	for c := int64(0); c < cols; c++ {
		p := unsafe.Add(sp, s+4*c)
		o := unsafe.Add(dp, d+c*ds1)
		for r := int64(0); r < rows; r++ {
			*(*uint32)(unsafe.Add(o, 4*r)) = *(*uint32)(unsafe.Add(p, r*ss0))
		}
	}
}
