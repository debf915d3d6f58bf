package dve

import "encoding/binary"

// The faithful StreamTranspose model (seed 000 §5.2-§5.4): one 32-channel x 32-element tile is
// loaded into vector registers, one channel per register, and transposed in log2(32) = 5 stages
// of the dual-output select DSEL. Stage s swaps lane blocks of width 1<<s between the register
// pairs (r[i+k], r[i+k+(1<<s)]): one DSEL consumes the pair and writes both outputs (vu, vt) in
// one issue, steered by a fixed selector (the CONST_TBL_tab_shflimm-style immediate). The lane
// width follows the dtype (§5.4):
//
//	2NX8   64 x 8-bit lanes   1-byte cells: each register holds a channel's cells of TWO element
//	                          tiles (lanes 0..31 tile t, 32..63 tile t+1); the selector works
//	                          inside each 32-lane half, so one pass transposes two tiles.
//	NX16   32 x 16-bit lanes  2-byte cells: the canonical case, one tile row per register.
//	N_2X32 16 x 32-bit lanes  4-byte cells: a tile row spans two registers (lo: cells 0..15,
//	                          hi: 16..31); stages 0..3 run DSEL on the lo and hi registers of
//	                          each pair, stage 4 (16-lane blocks = whole registers) is a DSEL
//	                          whose selector swaps r[x].hi with r[x+16].lo.
//
// The exact selector constants and schedule are hidden in the FLIX-desynced firmware body
// (seed 000 §2.5): this is the textbook butterfly, INFERRED-HIGH (Provenance dve.transpose_butterfly).

// lane is the element type of a lane width.
type lane interface{ ~uint8 | ~uint16 | ~uint32 }

// dselCtrl is the selector of one DSEL: for output lane l, vu[l] = cat[u[l]] and
// vt[l] = cat[t[l]], where cat = vs (lanes 0..n-1) followed by vr (lanes n..2n-1).
type dselCtrl struct{ u, t []uint8 }

// dsel is the dual-output two-source lane select (B21 DSEL: {vu(o), vt(o), vs(i), vr(i), sr(i)}).
// Outputs may alias inputs: the sources are first copied into cat, the 2N-lane view the
// selector indexes.
func dsel[T lane](vu, vt, vs, vr []T, c *dselCtrl, cat *[128]T) {
	n := len(vs)
	copy(cat[:n], vs)
	copy(cat[n:2*n], vr)
	u, t := c.u[:n], c.t[:n]
	vu, vt = vu[:n], vt[:n]
	for l, iu := range u {
		vu[l] = cat[iu&127]
		vt[l] = cat[t[l]&127]
	}
}

// butterflyCtrl is the stage selector for lane blocks of width b on n lanes: with a = vs and
// b = vr, lanes whose index has bit b clear keep a's cell in vu and take a's partner cell into
// vt; lanes with the bit set take vr's cells.
func butterflyCtrl(n, b int) *dselCtrl {
	c := &dselCtrl{u: make([]uint8, n), t: make([]uint8, n)}
	for l := 0; l < n; l++ {
		if l&b == 0 {
			c.u[l], c.t[l] = uint8(l), uint8(l+b)
		} else {
			c.u[l], c.t[l] = uint8(n+l-b), uint8(n+l)
		}
	}
	return c
}

// swapCtrl is the selector that exchanges two whole registers.
func swapCtrl(n int) *dselCtrl {
	c := &dselCtrl{u: make([]uint8, n), t: make([]uint8, n)}
	for l := 0; l < n; l++ {
		c.u[l], c.t[l] = uint8(n+l), uint8(l)
	}
	return c
}

var (
	ctrl2NX8  = [5]*dselCtrl{butterflyCtrl(64, 1), butterflyCtrl(64, 2), butterflyCtrl(64, 4), butterflyCtrl(64, 8), butterflyCtrl(64, 16)}
	ctrlNX16  = [5]*dselCtrl{butterflyCtrl(32, 1), butterflyCtrl(32, 2), butterflyCtrl(32, 4), butterflyCtrl(32, 8), butterflyCtrl(32, 16)}
	ctrlN2X32 = [4]*dselCtrl{butterflyCtrl(16, 1), butterflyCtrl(16, 2), butterflyCtrl(16, 4), butterflyCtrl(16, 8)}
	ctrlSwap  = swapCtrl(16)
)

// butterflyStages runs the 5 DSEL stages over 32 registers (2NX8 and NX16 forms).
func butterflyStages[T lane](r *[32][]T, ctrl *[5]*dselCtrl) {
	var cat [128]T // the select network's 2N-lane source view (vs then vr)
	for s := 0; s < 5; s++ {
		stride := 1 << s
		for i := 0; i < 32; i += 2 * stride {
			for k := 0; k < stride; k++ {
				a, b := r[i+k], r[i+k+stride]
				dsel(a, b, a, b, ctrl[s], &cat)
			}
		}
	}
}

// butterflyTranspose transposes the channel-major streams in src (nac channels x E cells of es
// bytes) into out with the same layout, tile by tile through the register model.
func butterflyTranspose(out, src []byte, nac, E, es int) {
	row := E * es
	tiles := E / 32
	for g := 0; g < nac/32; g++ {
		sIn := func(j int) []byte { return src[(32*g+j)*row : (32*g+j+1)*row] }
		sOut := func(i int) []byte { return out[(32*g+i)*row : (32*g+i+1)*row] }
		switch es {
		case 1: // 2NX8: two tiles per register set
			var regs [32][]uint8
			for c := range regs {
				regs[c] = make([]uint8, 64)
			}
			for t := 0; t < tiles; t += 2 {
				for c := 0; c < 32; c++ {
					in := sIn(c)
					copy(regs[c][:32], in[32*t:32*t+32])
					if t+1 < tiles {
						copy(regs[c][32:], in[32*(t+1):32*(t+1)+32])
					} else {
						clear(regs[c][32:])
					}
				}
				butterflyStages(&regs, &ctrl2NX8)
				for i := 0; i < 32; i++ {
					o := sOut(i)
					copy(o[32*t:32*t+32], regs[i][:32])
					if t+1 < tiles {
						copy(o[32*(t+1):32*(t+1)+32], regs[i][32:])
					}
				}
			}
		case 2: // NX16
			var regs [32][]uint16
			for c := range regs {
				regs[c] = make([]uint16, 32)
			}
			for t := 0; t < tiles; t++ {
				for c := 0; c < 32; c++ {
					in := sIn(c)[64*t:]
					for l := range regs[c] {
						regs[c][l] = binary.LittleEndian.Uint16(in[2*l:])
					}
				}
				butterflyStages(&regs, &ctrlNX16)
				for i := 0; i < 32; i++ {
					o := sOut(i)[64*t:]
					for l, v := range regs[i] {
						binary.LittleEndian.PutUint16(o[2*l:], v)
					}
				}
			}
		default: // N_2X32: lo/hi registers per tile row
			var lo, hi [32][]uint32
			var cat [128]uint32
			for c := range lo {
				lo[c], hi[c] = make([]uint32, 16), make([]uint32, 16)
			}
			for t := 0; t < tiles; t++ {
				for c := 0; c < 32; c++ {
					in := sIn(c)[128*t:]
					for l := 0; l < 16; l++ {
						lo[c][l] = binary.LittleEndian.Uint32(in[4*l:])
						hi[c][l] = binary.LittleEndian.Uint32(in[64+4*l:])
					}
				}
				for s := 0; s < 4; s++ {
					stride := 1 << s
					for i := 0; i < 32; i += 2 * stride {
						for k := 0; k < stride; k++ {
							dsel(lo[i+k], lo[i+k+stride], lo[i+k], lo[i+k+stride], ctrlN2X32[s], &cat)
							dsel(hi[i+k], hi[i+k+stride], hi[i+k], hi[i+k+stride], ctrlN2X32[s], &cat)
						}
					}
				}
				for k := 0; k < 16; k++ { // stage 4: 16-lane blocks are whole registers
					dsel(hi[k], lo[k+16], hi[k], lo[k+16], ctrlSwap, &cat)
				}
				for i := 0; i < 32; i++ {
					o := sOut(i)[128*t:]
					for l := 0; l < 16; l++ {
						binary.LittleEndian.PutUint32(o[4*l:], lo[i][l])
						binary.LittleEndian.PutUint32(o[64+4*l:], hi[i][l])
					}
				}
			}
		}
	}
}
