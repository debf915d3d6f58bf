package dve

import (
	"encoding/binary"
	"sync"
)

// The faithful StreamTranspose model (seed 000 §5.2-§5.4): one 32-channel x 32-element tile is
// loaded into vector registers, one channel per register, and transposed in log2(32) = 5 stages
// of the dual-output select DSEL. Stage s swaps lane blocks of width 1<<s between the register
// pairs (r[i+k], r[i+k+(1<<s)]): one DSEL consumes the pair and writes both outputs (vu, vt) in
// one issue, steered by a fixed selector (the CONST_TBL_tab_shflimm-style immediate). The lane
// width follows the dtype (§5.4); a register is 512 bits in every form:
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
//
// Execution: a register is eight uint64 words (lanes packed little-endian, as they sit in
// memory). Each selector table is compiled once (compileDsel) into a word program that computes
// every output word as an OR of masked, shifted source words; the program is derived from the
// table alone and reproduces the lane-level DSEL (dsel, kept as the reference semantics) exactly
// for ANY table, which TestCompiledDselMatchesLanes checks. The butterfly tables compile to one
// or two terms per output word.

// lane is the element type of a lane width.
type lane interface{ ~uint8 | ~uint16 | ~uint32 }

// dselCtrl is the selector of one DSEL: for output lane l, vu[l] = cat[u[l]] and
// vt[l] = cat[t[l]], where cat = vs (lanes 0..n-1) followed by vr (lanes n..2n-1).
type dselCtrl struct{ u, t []uint8 }

// dsel is the dual-output two-source lane select (B21 DSEL: {vu(o), vt(o), vs(i), vr(i), sr(i)})
// lane by lane: the reference semantics of the compiled form. Outputs may alias inputs: the
// sources are first copied into cat, the 2N-lane view the selector indexes.
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

// vreg is one 512-bit vector register: 8 words, lane l of a w-bit form at bits
// (l*w)%64 .. of word l*w/64.
type vreg [8]uint64

// dselTerm is one term of a compiled DSEL output word: (cat[src] >> shr << shl) & mask.
type dselTerm struct {
	src, shr, shl uint8
	mask          uint64
}

// dselProg is a DSEL selector compiled to word operations: output word w (vu words 0..7, then
// vt words 8..15) is the OR of terms[start[w]:start[w+1]]. When the table's selection is one
// of two cheaper word forms, found from the terms and proven equal on lane-numbered registers
// (both sides are lane selections, so agreeing on distinct lane values is agreeing on every
// input), run takes that form instead:
//
//	progSwap  vu[w], vt[w] = a delta swap of vs[w], vr[w]: t = (vs[w]>>k ^ vr[w]) & keep;
//	          vt[w] = vr[w]^t; vu[w] = vs[w]^t<<k (a lane-block exchange inside words)
//	progPerm  every output word is one whole source word: out[w] = cat[perm[w]]
//	progExch  a progPerm that keeps every word in place except nx pairs exchanged between the
//	          registers: vu[xs[i]] = vr[xr[i]], vt[xr[i]] = vs[xs[i]] (whole-word lane blocks and
//	          the register swap); in place that is nx word swaps and no other moves (block:
//	          the butterfly's forms, run by exch1..exch8)
type dselProg struct {
	start  [17]uint16
	terms  []dselTerm
	kind   uint8
	k      uint8
	keep   uint64
	perm   [16]uint8
	nx     uint8
	xs, xr [8]uint8
	block  uint8
}

const (
	progGeneric = iota
	progSwap
	progPerm
	progExch
)

// compileDsel compiles selector c for lanes of laneBits bits (n = 512/laneBits lanes): output
// lanes that take their cell from the same source word at the same bit distance share a term.
func compileDsel(c *dselCtrl, laneBits int) *dselProg {
	n := 512 / laneBits
	lpw := 64 / laneBits
	laneMask := uint64(1)<<laneBits - 1
	if laneBits == 64 {
		laneMask = ^uint64(0)
	}
	p := &dselProg{}
	for w := 0; w < 16; w++ {
		p.start[w] = uint16(len(p.terms))
		sel := c.u
		if w >= 8 {
			sel = c.t
		}
		type key struct{ src, shr, shl uint8 }
		var order []key
		masks := map[key]uint64{}
		for k := 0; k < lpw; k++ {
			l := (w%8)*lpw + k // output lane
			s := int(sel[l]) % (2 * n)
			sw, sk := s/lpw, s%lpw
			kk := key{src: uint8(sw)}
			if sk > k {
				kk.shr = uint8((sk - k) * laneBits)
			} else {
				kk.shl = uint8((k - sk) * laneBits)
			}
			if _, ok := masks[kk]; !ok {
				order = append(order, kk)
			}
			masks[kk] |= laneMask << (k * laneBits)
		}
		for _, kk := range order {
			p.terms = append(p.terms, dselTerm{src: kk.src, shr: kk.shr, shl: kk.shl, mask: masks[kk]})
		}
	}
	p.start[16] = uint16(len(p.terms))
	p.specialise(laneBits)
	return p
}

// specialise picks a cheaper form of the compiled selection when one reproduces it.
func (p *dselProg) specialise(laneBits int) {
	// Reference: the generic program on registers whose lanes hold their own cat index.
	var vs, vr, wu, wt, cu, ct vreg
	n := 512 / laneBits
	for l := 0; l < 2*n; l++ {
		r, ll := &vs, l
		if l >= n {
			r, ll = &vr, l-n
		}
		r[ll*laneBits/64] |= uint64(l) << (ll * laneBits % 64)
	}
	p.run(&wu, &wt, &vs, &vr)
	perm := true
	for _, t := range p.terms {
		perm = perm && t.shr == 0 && t.shl == 0 && t.mask == ^uint64(0)
	}
	if perm && len(p.terms) == 16 {
		p.kind = progPerm
		for w := range p.perm {
			p.perm[w] = p.terms[w].src
		}
		p.exchange()
	} else if t := p.terms[p.start[0]:p.start[1]]; len(t) == 2 && t[1].src == 8 && t[1].shl > 0 {
		p.kind, p.k, p.keep = progSwap, t[1].shl, t[1].mask>>t[1].shl
	} else {
		return
	}
	p.run(&cu, &ct, &vs, &vr)
	iu, it := vs, vr
	p.runInPlace(&iu, &it)
	if cu != wu || ct != wt || iu != wu || it != wt {
		p.kind = progGeneric
	}
}

// exchange turns a progPerm into a progExch when its word permutation is the identity apart
// from pairs exchanged between vs and vr (specialise then checks the result as for every form).
func (p *dselProg) exchange() {
	var nx uint8
	var xs, xr [8]uint8
	for w := 0; w < 8; w++ {
		switch src := p.perm[w]; {
		case src == uint8(w):
		case src >= 8 && p.perm[src] == uint8(w):
			xs[nx], xr[nx] = uint8(w), src-8
			nx++
		default:
			return
		}
	}
	for j := 8; j < 16; j++ { // every vt word not in a pair keeps its own vr word
		if src := p.perm[j]; src != uint8(j) && (src >= 8 || p.perm[src] != uint8(j)) {
			return
		}
	}
	p.kind, p.nx, p.xs, p.xr = progExch, nx, xs, xr
	for _, b := range []uint8{1, 2, 4, 8} {
		var bx, br [8]uint8 // the pairs of exchB: vs word w+B with vr word w (B = 8: w with w)
		n := uint8(0)
		for w := uint8(0); w < 8; w++ {
			switch {
			case b == 8:
				bx[n], br[n] = w, w
				n++
			case w&b != 0:
				bx[n], br[n] = w, w-b
				n++
			}
		}
		if n == nx && bx == xs && br == xr {
			p.block = b
		}
	}
}

// exch1, exch2, exch4 and exch8 are the progExch forms of the butterfly: whole-word lane blocks
// of B = 1, 2 or 4 words (vs words with bit B set exchanged with the vr words B below them) and
// the register swap (B = 8: every word). Constant word indexes, so the compiler inlines them.
func exch1(a, b *vreg) {
	a[1], a[3], a[5], a[7], b[0], b[2], b[4], b[6] = b[0], b[2], b[4], b[6], a[1], a[3], a[5], a[7]
}

func exch2(a, b *vreg) {
	a[2], a[3], a[6], a[7], b[0], b[1], b[4], b[5] = b[0], b[1], b[4], b[5], a[2], a[3], a[6], a[7]
}

func exch4(a, b *vreg) {
	a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3] = b[0], b[1], b[2], b[3], a[4], a[5], a[6], a[7]
}

func exch8(a, b *vreg) {
	a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3] = b[0], b[1], b[2], b[3], a[0], a[1], a[2], a[3]
	a[4], a[5], a[6], a[7], b[4], b[5], b[6], b[7] = b[4], b[5], b[6], b[7], a[4], a[5], a[6], a[7]
}

// runInPlace is run(a, b, a, b): the butterfly's form, every DSEL writing its own sources; a and
// b are two different registers (as deltaSwap needs).
func (p *dselProg) runInPlace(a, b *vreg) {
	switch p.kind {
	case progSwap:
		deltaSwap(a, b, uint64(p.k&63), p.keep)
		return
	case progExch:
	default:
		p.run(a, b, a, b)
		return
	}
	switch p.block {
	case 1:
		exch1(a, b)
	case 2:
		exch2(a, b)
	case 4:
		exch4(a, b)
	case 8:
		exch8(a, b)
	default:
		for i := range p.nx {
			w, j := p.xs[i]&7, p.xr[i]&7
			a[w], b[j] = b[j], a[w]
		}
	}
}

// deltaSwap is progSwap in place, on two different registers. Word by word and unrolled:
// loading all sixteen words first (as the aliasing-safe run must) needs more registers than
// amd64 has and spilled (32 swaps 370 -> 255 ns when unrolled); a loop with the shift constant
// measured slower still. Unrolling (here and in the exchanges) made the butterfly 1.8-1.9x
// faster at 1 MiB than loops, whose speed also swung 1.7x with unrelated changes elsewhere in
// the package.
func deltaSwap(a, b *vreg, k, keep uint64) {
	var t uint64
	t = (a[0]>>k ^ b[0]) & keep
	a[0], b[0] = a[0]^t<<k, b[0]^t
	t = (a[1]>>k ^ b[1]) & keep
	a[1], b[1] = a[1]^t<<k, b[1]^t
	t = (a[2]>>k ^ b[2]) & keep
	a[2], b[2] = a[2]^t<<k, b[2]^t
	t = (a[3]>>k ^ b[3]) & keep
	a[3], b[3] = a[3]^t<<k, b[3]^t
	t = (a[4]>>k ^ b[4]) & keep
	a[4], b[4] = a[4]^t<<k, b[4]^t
	t = (a[5]>>k ^ b[5]) & keep
	a[5], b[5] = a[5]^t<<k, b[5]^t
	t = (a[6]>>k ^ b[6]) & keep
	a[6], b[6] = a[6]^t<<k, b[6]^t
	t = (a[7]>>k ^ b[7]) & keep
	a[7], b[7] = a[7]^t<<k, b[7]^t
}

// run executes the compiled DSEL: vu, vt = select(vs ++ vr). Outputs may alias inputs.
func (p *dselProg) run(vu, vt, vs, vr *vreg) {
	switch p.kind {
	case progSwap:
		u, t := *vs, *vr
		deltaSwap(&u, &t, uint64(p.k&63), p.keep)
		*vu, *vt = u, t
		return
	case progExch:
		u, t := *vs, *vr
		for i := range p.nx {
			w, j := p.xs[i]&7, p.xr[i]&7
			u[w], t[j] = vr[j], vs[w]
		}
		*vu, *vt = u, t
		return
	case progPerm:
		var cat [16]uint64
		*(*vreg)(cat[:8]) = *vs
		*(*vreg)(cat[8:]) = *vr
		pm := &p.perm
		vu[0], vu[1], vu[2], vu[3] = cat[pm[0]&15], cat[pm[1]&15], cat[pm[2]&15], cat[pm[3]&15]
		vu[4], vu[5], vu[6], vu[7] = cat[pm[4]&15], cat[pm[5]&15], cat[pm[6]&15], cat[pm[7]&15]
		vt[0], vt[1], vt[2], vt[3] = cat[pm[8]&15], cat[pm[9]&15], cat[pm[10]&15], cat[pm[11]&15]
		vt[4], vt[5], vt[6], vt[7] = cat[pm[12]&15], cat[pm[13]&15], cat[pm[14]&15], cat[pm[15]&15]
		return
	}
	var cat [16]uint64
	*(*vreg)(cat[:8]) = *vs
	*(*vreg)(cat[8:]) = *vr
	var out [16]uint64
	terms := p.terms
	for w := range out {
		x := uint64(0)
		for _, t := range terms[p.start[w]:p.start[w+1]] {
			x |= cat[t.src&15] >> (t.shr & 63) << (t.shl & 63) & t.mask
		}
		out[w] = x
	}
	*vu = *(*vreg)(out[:8])
	*vt = *(*vreg)(out[8:])
}

var (
	ctrl2NX8  = [5]*dselCtrl{butterflyCtrl(64, 1), butterflyCtrl(64, 2), butterflyCtrl(64, 4), butterflyCtrl(64, 8), butterflyCtrl(64, 16)}
	ctrlNX16  = [5]*dselCtrl{butterflyCtrl(32, 1), butterflyCtrl(32, 2), butterflyCtrl(32, 4), butterflyCtrl(32, 8), butterflyCtrl(32, 16)}
	ctrlN2X32 = [4]*dselCtrl{butterflyCtrl(16, 1), butterflyCtrl(16, 2), butterflyCtrl(16, 4), butterflyCtrl(16, 8)}
	ctrlSwap  = swapCtrl(16)

	prog2NX8, progNX16 [5]*dselProg
	progN2X32          [4]*dselProg
	progRegSwap        = compileDsel(ctrlSwap, 32)
)

func init() {
	for s := 0; s < 5; s++ {
		prog2NX8[s] = compileDsel(ctrl2NX8[s], 8)
		progNX16[s] = compileDsel(ctrlNX16[s], 16)
	}
	for s := 0; s < 4; s++ {
		progN2X32[s] = compileDsel(ctrlN2X32[s], 32)
	}
}

// butterflyStages runs stages [0, len(progs)) of DSEL over 32 registers: stage s pairs r[i+k]
// with r[i+k+(1<<s)].
// The two forms the butterfly tables compile to are dispatched once per stage, not per DSEL.
func butterflyStages(r *[32]vreg, progs []*dselProg) {
	for s, p := range progs {
		stride := 1 << s
		switch {
		case p.kind == progExch && p.block != 0:
			for i := 0; i < 32; i += 2 * stride {
				for k := i; k < i+stride; k++ {
					a, b := &r[k], &r[k+stride]
					switch p.block {
					case 1:
						exch1(a, b)
					case 2:
						exch2(a, b)
					case 4:
						exch4(a, b)
					default:
						exch8(a, b)
					}
				}
			}
			continue
		case p.kind == progSwap:
			k, keep := uint64(p.k&63), p.keep
			for i := 0; i < 32; i += 2 * stride {
				for j := i; j < i+stride; j++ {
					deltaSwap(&r[j], &r[j+stride], k, keep)
				}
			}
			continue
		}
		for i := 0; i < 32; i += 2 * stride {
			for k := i; k < i+stride; k++ {
				p.runInPlace(&r[k], &r[k+stride])
			}
		}
	}
}

func loadReg(r *vreg, b *[64]byte) {
	for i := range r {
		r[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
}

func storeReg(b *[64]byte, r *vreg) {
	for i, w := range r {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
}

// butterflyTranspose transposes the channel-major streams in src (nac channels x E cells of es
// bytes) into out with the same layout, tile by tile through the register model.
func butterflyTranspose(out, src []byte, nac, E, es int) {
	row := E * es
	srcRows, dstRows := make([][]byte, nac), make([][]byte, nac)
	for c := range srcRows {
		srcRows[c], dstRows[c] = src[c*row:(c+1)*row], out[c*row:(c+1)*row]
	}
	butterflyRows(1, dstRows, srcRows, E, es)
}

// bflyWork is the number of consecutive register passes one goroutine takes at a time (8 KiB
// of each row for 4-byte cells, 4 KiB otherwise).
const bflyWork = 64

// bflyBuf is one worker's register file and the src and dst rows of its current run of passes:
// the src rows are copied in and the dst rows out in one piece per row (copyOut: non-temporal
// stores for large instructions) rather than 64 bytes at a time: 4-byte cells, one core, full
// size 8.4 -> 5.6 ms (the fast path: 0.65 ms), 1 MiB 294 -> 330 us; runs of 64
// passes measured 5-10% faster than 16 at full size.
type bflyBuf struct {
	regs    [2][32]vreg
	in, out [32][bflyWork * 128]byte
}

var bflyPool = sync.Pool{New: func() any { return new(bflyBuf) }}

// loadRow loads register r from the 64 bytes at off of row, zero past the row's end.
func loadRow(r *vreg, row []byte, off int) {
	if off+64 <= len(row) {
		loadReg(r, (*[64]byte)(row[off:]))
		return
	}
	var buf [64]byte
	copy(buf[:], row[min(off, len(row)):])
	loadReg(r, &buf)
}

// storeRow stores register r to the 64 bytes at off of row, dropping what passes its end.
func storeRow(row []byte, off int, r *vreg) {
	if off+64 <= len(row) {
		storeReg((*[64]byte)(row[off:]), r)
		return
	}
	if off < len(row) {
		var buf [64]byte
		storeReg(&buf, r)
		copy(row[off:], buf[:])
	}
}

// permuteForm is a lane-width form of the DVE's lane-permute ops (B21's lane-grid token): the
// IVP width token its DSEL ops carry and the lanes of a 512-bit register it splits.
type permuteForm struct {
	name  string
	lanes int
}

// permuteFormFor is the form the butterfly takes for cells of es bytes, the one butterflyRows
// dispatches on: the lane width is the cell width (seed 000 §5.4: "an int8 transpose uses the
// 2NX8 (64-lane) permute, a bf16/fp16/int16 transpose the NX16 (32-lane), an int32/fp32
// transpose the N_2X32 (16-lane)"). ok is false for a width with no form, which the callers
// refuse before transposing.
func permuteFormFor(es int) (f permuteForm, ok bool) {
	switch es {
	case 1:
		return permuteForm{"2NX8", 64}, true
	case 2:
		return permuteForm{"NX16", 32}, true
	case 4:
		return permuteForm{"N_2X32", 16}, true
	}
	return permuteForm{}, false
}

// butterflyRows transposes through the register model on up to procs goroutines (over channel
// groups and runs of register passes, which are independent): src[c] holds channel c's E
// cells of es bytes, dst[c] receives the first len(dst[c])/es cells of its output stream.
func butterflyRows(procs int, dst, src [][]byte, E, es int) {
	form, ok := permuteFormFor(es)
	if !ok {
		return
	}
	// A pass covers max(32, lanes) cells of each row: 2NX8's 64 lanes hold two tiles, N_2X32's
	// 16 lanes half a tile row (two registers).
	cells := max(32, form.lanes)
	passes := (E + cells - 1) / cells // register passes per group
	chunks := (passes + bflyWork - 1) / bflyWork
	groups := len(src) / 32
	pb := cells * es // bytes of each row one pass covers
	total := 0
	for _, r := range dst {
		total += len(r)
	}
	nt := total >= ntMin
	parallel(procs, groups*chunks, func(i int) {
		g, c := i/chunks, i%chunks
		rIn, dOut := src[32*g:32*g+32], dst[32*g:32*g+32]
		buf := bflyPool.Get().(*bflyBuf)
		defer bflyPool.Put(buf)
		lo, hi := &buf.regs[0], &buf.regs[1]
		// The passes write the rows of buf.out (sOut), from byte 0 at pass p0.
		p0, p1 := c*bflyWork, min(passes, (c+1)*bflyWork)
		var sIn, sOut [32][]byte
		for i := range sOut {
			sOut[i] = buf.out[i][:(p1-p0)*pb]
			if off := p0 * pb; off < len(rIn[i]) {
				sIn[i] = buf.in[i][:copy(buf.in[i][:(p1-p0)*pb], rIn[i][off:])]
			}
		}
		defer func() {
			for i, row := range dOut {
				if off := p0 * pb; off < len(row) {
					copyOut(row[off:min(len(row), off+(p1-p0)*pb)], sOut[i], nt)
				}
			}
		}()
		for ps := p0; ps < p1; ps++ {
			o := (ps - p0) * pb // the pass's bytes in sOut
			switch form.lanes {
			case 64: // 2NX8: lanes 0..31 tile 2ps, lanes 32..63 tile 2ps+1 (zero past the end)
				for c := 0; c < 32; c++ {
					loadRow(&lo[c], sIn[c], o)
				}
				butterflyStages(lo, prog2NX8[:])
				for i := 0; i < 32; i++ {
					storeRow(sOut[i], o, &lo[i])
				}
			case 32: // NX16
				for c := 0; c < 32; c++ {
					loadRow(&lo[c], sIn[c], o)
				}
				butterflyStages(lo, progNX16[:])
				for i := 0; i < 32; i++ {
					storeRow(sOut[i], o, &lo[i])
				}
			default: // N_2X32: lo/hi registers per tile row
				for c := 0; c < 32; c++ {
					loadRow(&lo[c], sIn[c], o)
					loadRow(&hi[c], sIn[c], o+64)
				}
				butterflyStages(lo, progN2X32[:])
				butterflyStages(hi, progN2X32[:])
				for k := 0; k < 16; k++ { // stage 4: 16-lane blocks are whole registers
					progRegSwap.runInPlace(&hi[k], &lo[k+16])
				}
				for i := 0; i < 32; i++ {
					storeRow(sOut[i], o, &lo[i])
					storeRow(sOut[i], o+64, &hi[i])
				}
			}
		}
	})
}
