package dma

import "unsafe"

// copyNest walks a common nest inside two slices that cover exactly the walks' byte boxes: the
// element with index (i0..i3) moves from sb[soff + sum(i_k*ss[k])] to db[doff + sum(i_k*ds[k])].
// The two inner levels pick a kernel: contiguous lines (copy), the crossbar tile (dst contiguous
// along level 0, src contiguous along level 1: a blocked transpose), or element-strided.
// The offsets are in range by construction (span), so the kernels index without checks.
func copyNest(db, sb []byte, doff, soff int64, n [MaxLevels]uint32, ds, ss [MaxLevels]int64, es int64) {
	n0 := int64(n[0])
	// Crossbar tiles: an outer level that continues the rows on both sides (the row-tile level)
	// merges into level 0, so each destination line is written in long runs instead of one
	// 16-element piece per tile.
	if ds[0] == es && ss[1] == es && n[1] > 1 {
		for k := 2; k < MaxLevels; k++ {
			if n[k] > 1 && ds[k] == n0*es && ss[k] == n0*ss[0] {
				n0 *= int64(n[k])
				n[k] = 1
				break
			}
		}
	}
	for i3 := int64(0); i3 < int64(n[3]); i3++ {
		for i2 := int64(0); i2 < int64(n[2]); i2++ {
			d := doff + i3*ds[3] + i2*ds[2]
			s := soff + i3*ss[3] + i2*ss[2]
			copy2(db, sb, d, s, n0, int64(n[1]), ds[0], ss[0], ds[1], ss[1], es)
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

// stageRows is how many source rows xpose2 transposes into a scratch block before copying the
// block's lines out: destination lines (SBUF partitions) sit a power-of-two stride apart and
// alias in the caches, so they are written in whole 2*stageRows-byte runs, not 32-byte pieces.
const stageRows = 256

// xpose2 transposes a rows x cols tile of 2-byte elements.
func xpose2(dp, sp unsafe.Pointer, d, s, rows, cols, ss0, ds1 int64) {
	if rows >= 2*16 && cols >= 4 && (ds1 >= 4096 || ds1 <= -4096) {
		var scratch [stageRows * XbarCols * 2]byte
		tp := unsafe.Pointer(&scratch[0])
		for r0 := int64(0); r0 < rows; r0 += stageRows {
			nr := min(stageRows, rows-r0)
			for c0 := int64(0); c0 < cols; c0 += XbarCols {
				nc := min(XbarCols, cols-c0)
				xpose2Bands(tp, unsafe.Add(sp, s+r0*ss0+2*c0), 0, 0, nr, nc, ss0, 2*stageRows)
				for c := int64(0); c < nc; c++ {
					copy(unsafe.Slice((*byte)(unsafe.Add(dp, d+(c0+c)*ds1+2*r0)), 2*nr),
						unsafe.Slice((*byte)(unsafe.Add(tp, c*2*stageRows)), 2*nr))
				}
			}
		}
		return
	}
	xpose2Bands(dp, sp, d, s, rows, cols, ss0, ds1)
}

// xpose2Bands transposes in 16-row bands, four columns at a time (one 8-byte load per source row,
// four 8-byte stores per destination line), then the leftover columns and rows one by one.
func xpose2Bands(dp, sp unsafe.Pointer, d, s, rows, cols, ss0, ds1 int64) {
	bands := rows / 16
	c := int64(0)
	if bands > 0 {
		c = cols &^ 3
		for cc := int64(0); cc < c; cc += 4 {
			for b := int64(0); b < bands; b++ {
				p := unsafe.Add(sp, s+16*b*ss0+2*cc)
				v0 := *(*uint64)(p)
				v1 := *(*uint64)(unsafe.Add(p, 1*ss0))
				v2 := *(*uint64)(unsafe.Add(p, 2*ss0))
				v3 := *(*uint64)(unsafe.Add(p, 3*ss0))
				v4 := *(*uint64)(unsafe.Add(p, 4*ss0))
				v5 := *(*uint64)(unsafe.Add(p, 5*ss0))
				v6 := *(*uint64)(unsafe.Add(p, 6*ss0))
				v7 := *(*uint64)(unsafe.Add(p, 7*ss0))
				v8 := *(*uint64)(unsafe.Add(p, 8*ss0))
				v9 := *(*uint64)(unsafe.Add(p, 9*ss0))
				v10 := *(*uint64)(unsafe.Add(p, 10*ss0))
				v11 := *(*uint64)(unsafe.Add(p, 11*ss0))
				v12 := *(*uint64)(unsafe.Add(p, 12*ss0))
				v13 := *(*uint64)(unsafe.Add(p, 13*ss0))
				v14 := *(*uint64)(unsafe.Add(p, 14*ss0))
				v15 := *(*uint64)(unsafe.Add(p, 15*ss0))
				o := unsafe.Add(dp, d+cc*ds1+32*b)
				*(*[4]uint64)(unsafe.Add(o, 0*ds1)) = [4]uint64{v0&0xFFFF | (v1&0xFFFF)<<16 | (v2&0xFFFF)<<32 | (v3)<<48, v4&0xFFFF | (v5&0xFFFF)<<16 | (v6&0xFFFF)<<32 | (v7)<<48, v8&0xFFFF | (v9&0xFFFF)<<16 | (v10&0xFFFF)<<32 | (v11)<<48, v12&0xFFFF | (v13&0xFFFF)<<16 | (v14&0xFFFF)<<32 | (v15)<<48}
				*(*[4]uint64)(unsafe.Add(o, 1*ds1)) = [4]uint64{(v0>>16)&0xFFFF | ((v1>>16)&0xFFFF)<<16 | ((v2>>16)&0xFFFF)<<32 | (v3>>16)<<48, (v4>>16)&0xFFFF | ((v5>>16)&0xFFFF)<<16 | ((v6>>16)&0xFFFF)<<32 | (v7>>16)<<48, (v8>>16)&0xFFFF | ((v9>>16)&0xFFFF)<<16 | ((v10>>16)&0xFFFF)<<32 | (v11>>16)<<48, (v12>>16)&0xFFFF | ((v13>>16)&0xFFFF)<<16 | ((v14>>16)&0xFFFF)<<32 | (v15>>16)<<48}
				*(*[4]uint64)(unsafe.Add(o, 2*ds1)) = [4]uint64{(v0>>32)&0xFFFF | ((v1>>32)&0xFFFF)<<16 | ((v2>>32)&0xFFFF)<<32 | (v3>>32)<<48, (v4>>32)&0xFFFF | ((v5>>32)&0xFFFF)<<16 | ((v6>>32)&0xFFFF)<<32 | (v7>>32)<<48, (v8>>32)&0xFFFF | ((v9>>32)&0xFFFF)<<16 | ((v10>>32)&0xFFFF)<<32 | (v11>>32)<<48, (v12>>32)&0xFFFF | ((v13>>32)&0xFFFF)<<16 | ((v14>>32)&0xFFFF)<<32 | (v15>>32)<<48}
				*(*[4]uint64)(unsafe.Add(o, 3*ds1)) = [4]uint64{(v0>>48)&0xFFFF | ((v1>>48)&0xFFFF)<<16 | ((v2>>48)&0xFFFF)<<32 | (v3>>48)<<48, (v4>>48)&0xFFFF | ((v5>>48)&0xFFFF)<<16 | ((v6>>48)&0xFFFF)<<32 | (v7>>48)<<48, (v8>>48)&0xFFFF | ((v9>>48)&0xFFFF)<<16 | ((v10>>48)&0xFFFF)<<32 | (v11>>48)<<48, (v12>>48)&0xFFFF | ((v13>>48)&0xFFFF)<<16 | ((v14>>48)&0xFFFF)<<32 | (v15>>48)<<48}
			}
		}
	}
	for cc := int64(0); cc < cols; cc++ {
		r0 := int64(0)
		if cc < c {
			r0 = 16 * bands
		}
		p := unsafe.Add(sp, s+2*cc)
		o := unsafe.Add(dp, d+cc*ds1)
		for r := r0; r < rows; r++ {
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
