package isa

import (
	"encoding/binary"
	"unsafe"
)

var le = binary.LittleEndian

// structOf is the opcode table's Struct column as an array, for a map-free decode dispatch.
var structOf = func() (t [256]StructKind) {
	for op, in := range opcodeTable {
		t[op] = in.Struct
	}
	return t
}()

func checkLen(b []byte) error {
	if len(b) != InstNBytes {
		return &WordLengthError{Len: len(b)}
	}
	return nil
}

// Decode decodes one 64-byte instruction word. It is total: every 64-byte input decodes (opcodes
// without a modelled struct, and unknown opcodes, decode as *Raw) and it never panics; only a
// wrong length is an error. Encode(Decode(b)) == b for every b. Decode allocates the returned
// instruction; a Decoder reuses its own.
func Decode(b []byte) (Inst, error) {
	if err := checkLen(b); err != nil {
		return nil, err
	}
	w := (*[InstNBytes]byte)(b)
	switch structOf[w[0]] {
	case StructS4D4_TR:
		i := new(S4D4TR)
		decodeS4D4TR(w, i)
		return i, nil
	case StructCTRL_IM:
		i := new(LoadMaskSelect)
		decodeLoadMaskSelect(w, i)
		return i, nil
	case StructD4_MR:
		i := new(Memset)
		decodeMemset(w, i)
		return i, nil
	case StructDMA_DIRECT2D:
		i := new(DMADirect2D)
		decodeDMADirect2D(w, i)
		return i, nil
	case StructDMA_INDIRECT1D:
		i := new(DMAIndirect1D)
		decodeDMAIndirect1D(w, i)
		return i, nil
	case StructDMA_GATHER_XPOSE:
		i := new(DMAGatherXpose)
		decodeDMAGatherXpose(w, i)
		return i, nil
	case StructDMA_DIRECT2D_XPOSE:
		i := new(DMADirect2DXpose)
		decodeDMADirect2DXpose(w, i)
		return i, nil
	}
	i := new(Raw)
	decodeRaw(w, i)
	return i, nil
}

// Decoder decodes words without allocating: it owns one instruction value per struct kind and
// Decode returns a pointer to the one it filled, valid until the next call. Use it on hot paths
// (streams of millions of words); copy the value out to keep it.
type Decoder struct {
	s4 S4D4TR
	lm LoadMaskSelect
	ms Memset
	d2 DMADirect2D
	di DMAIndirect1D
	gx DMAGatherXpose
	dx DMADirect2DXpose
	rw Raw
}

// Decode is the package Decode into the decoder's own storage.
func (d *Decoder) Decode(b []byte) (Inst, error) {
	if len(b) != InstNBytes {
		return nil, checkLen(b)
	}
	w := (*[InstNBytes]byte)(b)
	switch structOf[w[0]] {
	case StructS4D4_TR:
		decodeS4D4TR(w, &d.s4)
		return &d.s4, nil
	case StructCTRL_IM:
		decodeLoadMaskSelect(w, &d.lm)
		return &d.lm, nil
	case StructD4_MR:
		decodeMemset(w, &d.ms)
		return &d.ms, nil
	case StructDMA_DIRECT2D:
		decodeDMADirect2D(w, &d.d2)
		return &d.d2, nil
	case StructDMA_INDIRECT1D:
		decodeDMAIndirect1D(w, &d.di)
		return &d.di, nil
	case StructDMA_GATHER_XPOSE:
		decodeDMAGatherXpose(w, &d.gx)
		return &d.gx, nil
	case StructDMA_DIRECT2D_XPOSE:
		decodeDMADirect2DXpose(w, &d.dx)
		return &d.dx, nil
	}
	decodeRaw(w, &d.rw)
	return &d.rw, nil
}

// DecodeStream decodes a whole instruction stream (a file of 64-byte words). A length that is
// not a multiple of 64 is a *LengthError naming the offset of the incomplete word; no word is
// returned then.
func DecodeStream(b []byte) ([]Inst, error) {
	if len(b)%InstNBytes != 0 {
		return nil, &LengthError{Len: len(b), Offset: len(b) / InstNBytes * InstNBytes}
	}
	out := make([]Inst, 0, len(b)/InstNBytes)
	for off := 0; off < len(b); off += InstNBytes {
		i, _ := Decode(b[off : off+InstNBytes])
		out = append(out, i)
	}
	return out, nil
}

// CheckStreamLength returns a *LengthError when n is not a multiple of 64.
func CheckStreamLength(n int) error {
	if n%InstNBytes != 0 {
		return &LengthError{Len: n, Offset: n / InstNBytes * InstNBytes}
	}
	return nil
}

// Encode is the exact mirror of Decode: the 64 bytes of inst, field by field in the same order.
// A nil instruction encodes as 64 zero bytes.
func Encode(inst Inst) [InstNBytes]byte {
	var w [InstNBytes]byte
	EncodeTo(&w, inst)
	return w
}

// EncodeTo writes inst into w (every byte of w is written).
func EncodeTo(w *[InstNBytes]byte, inst Inst) {
	switch i := inst.(type) {
	case *S4D4TR:
		encodeS4D4TR(w, i)
	case *LoadMaskSelect:
		encodeLoadMaskSelect(w, i)
	case *Memset:
		encodeMemset(w, i)
	case *DMADirect2D:
		encodeDMADirect2D(w, i)
	case *DMAIndirect1D:
		encodeDMAIndirect1D(w, i)
	case *DMAGatherXpose:
		encodeDMAGatherXpose(w, i)
	case *DMADirect2DXpose:
		encodeDMADirect2DXpose(w, i)
	case *Raw:
		encodeRaw(w, i)
	default:
		*w = [InstNBytes]byte{}
	}
}

// Opcode of an instruction (its header's opcode); 0 for nil.
func OpcodeOf(inst Inst) Opcode {
	if inst == nil {
		return 0
	}
	return inst.Hdr().Opcode
}

// ---- shared sub-structs -------------------------------------------------------------------

func getHeader(w *[InstNBytes]byte) Header {
	return Header{Opcode: Opcode(w[0]), InstWordLen: w[1], DebugCmd: w[2], DebugHint: w[3]}
}

func putHeader(w *[InstNBytes]byte, h Header) {
	w[0], w[1], w[2], w[3] = byte(h.Opcode), h.InstWordLen, h.DebugCmd, h.DebugHint
}

func getEvents(w *[InstNBytes]byte) Events {
	return Events{WaitMode: WaitMode(w[4]), WaitIdx: w[5], UpdateMode: UpdateMode(w[6]), UpdateIdx: w[7],
		SemaphoreValue: le.Uint32(w[8:12])}
}

func putEvents(w *[InstNBytes]byte, e Events) {
	w[4], w[5], w[6], w[7] = byte(e.WaitMode), e.WaitIdx, byte(e.UpdateMode), e.UpdateIdx
	le.PutUint32(w[8:12], e.SemaphoreValue)
}

func getTensor4D(b []byte) Tensor4D {
	_ = b[19]
	return Tensor4D{
		StartAddr: Addr4(le.Uint32(b[0:4])),
		StepElem:  [4]int16{int16(le.Uint16(b[4:])), int16(le.Uint16(b[6:])), int16(le.Uint16(b[8:])), int16(le.Uint16(b[10:]))},
		NumElem:   [4]uint16{le.Uint16(b[12:]), le.Uint16(b[14:]), le.Uint16(b[16:]), le.Uint16(b[18:])},
	}
}

func putTensor4D(b []byte, t Tensor4D) {
	_ = b[19]
	le.PutUint32(b[0:4], uint32(t.StartAddr))
	for k := 0; k < 4; k++ {
		le.PutUint16(b[4+2*k:], uint16(t.StepElem[k]))
		le.PutUint16(b[12+2*k:], t.NumElem[k])
	}
}

// ---- S4D4_TR (seed 000 §4) ----------------------------------------------------------------

// s4Mirror reports that the Go layout of S4D4TR is byte-for-byte the wire layout on this
// machine (little-endian, no padding: checked field by field), so decode and encode of the hot
// struct are one 64-byte copy. The field-by-field functions remain the reference and the path
// on any other platform; a test checks that both agree.
var s4Mirror = func() bool {
	var x S4D4TR
	var one uint16 = 1
	little := *(*byte)(unsafe.Pointer(&one)) == 1
	return little && unsafe.Sizeof(x) == 64 && unsafe.Offsetof(x.Events) == 4 &&
		unsafe.Offsetof(x.Events.SemaphoreValue) == 4 && unsafe.Offsetof(x.SrcMemPattern) == 12 &&
		unsafe.Offsetof(x.SrcMemPattern.StepElem) == 4 && unsafe.Offsetof(x.SrcMemPattern.NumElem) == 12 &&
		unsafe.Offsetof(x.InDtype) == 32 && unsafe.Offsetof(x.Op) == 36 && unsafe.Offsetof(x.Reserved1) == 39 &&
		unsafe.Offsetof(x.DstMemPattern) == 44
}()

func decodeS4D4TR(w *[InstNBytes]byte, i *S4D4TR) {
	if s4Mirror {
		*(*[InstNBytes]byte)(unsafe.Pointer(i)) = *w
		return
	}
	decodeS4D4TRFields(w, i)
}

func encodeS4D4TR(w *[InstNBytes]byte, i *S4D4TR) {
	if s4Mirror {
		*w = *(*[InstNBytes]byte)(unsafe.Pointer(i))
		return
	}
	encodeS4D4TRFields(w, i)
}

func decodeS4D4TRFields(w *[InstNBytes]byte, i *S4D4TR) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	i.SrcMemPattern = getTensor4D(w[12:32])
	i.InDtype = DType(w[32])
	i.OutDtype = DType(w[33])
	i.NumActiveChannels = w[34]
	i.Negated = w[35]
	i.Op = ALUOp(w[36])
	i.OpDim = TensorSubdim(w[37])
	i.MaskEnable = w[38]
	copy(i.Reserved1[:], w[39:44])
	i.DstMemPattern = getTensor4D(w[44:64])
}

func encodeS4D4TRFields(w *[InstNBytes]byte, i *S4D4TR) {
	putHeader(w, i.Header)
	putEvents(w, i.Events)
	putTensor4D(w[12:32], i.SrcMemPattern)
	w[32] = byte(i.InDtype)
	w[33] = byte(i.OutDtype)
	w[34] = i.NumActiveChannels
	w[35] = i.Negated
	w[36] = byte(i.Op)
	w[37] = byte(i.OpDim)
	w[38] = i.MaskEnable
	copy(w[39:44], i.Reserved1[:])
	putTensor4D(w[44:64], i.DstMemPattern)
}

// ---- LOAD_MASK_SELECT / CTRL_IM (FACTS §F.4) ----------------------------------------------

func decodeLoadMaskSelect(w *[InstNBytes]byte, i *LoadMaskSelect) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	i.ParamRAMOffset = le.Uint16(w[12:14])
	i.ImmPtrSelect = w[14]
	copy(i.Reserved0[:], w[15:32])
	copy(i.Immediate[:], w[32:64])
}

func encodeLoadMaskSelect(w *[InstNBytes]byte, i *LoadMaskSelect) {
	putHeader(w, i.Header)
	putEvents(w, i.Events)
	le.PutUint16(w[12:14], i.ParamRAMOffset)
	w[14] = i.ImmPtrSelect
	copy(w[15:32], i.Reserved0[:])
	copy(w[32:64], i.Immediate[:])
}

// ---- MEMSET / D4_MR (FACTS §F.4) ----------------------------------------------------------

func decodeMemset(w *[InstNBytes]byte, i *Memset) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	copy(i.Raw12[:], w[12:28])
	i.DstElementCount = le.Uint32(w[28:32])
	i.Dtype = DType(w[32])
	i.Raw33 = w[33]
	i.NumActiveChannels = w[34]
	i.Raw35 = w[35]
	i.SerializationMode = w[36]
	copy(i.Raw37[:], w[37:40])
	i.SetValue = le.Uint32(w[40:44])
	i.DstMemPattern = getTensor4D(w[44:64])
}

func encodeMemset(w *[InstNBytes]byte, i *Memset) {
	putHeader(w, i.Header)
	putEvents(w, i.Events)
	copy(w[12:28], i.Raw12[:])
	le.PutUint32(w[28:32], i.DstElementCount)
	w[32] = byte(i.Dtype)
	w[33] = i.Raw33
	w[34] = i.NumActiveChannels
	w[35] = i.Raw35
	w[36] = i.SerializationMode
	copy(w[37:40], i.Raw37[:])
	le.PutUint32(w[40:44], i.SetValue)
	putTensor4D(w[44:64], i.DstMemPattern)
}

// ---- DMA_DIRECT2D (FACTS §C.2) ------------------------------------------------------------

func decodeDMADirect2D(w *[InstNBytes]byte, i *DMADirect2D) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	i.DMAConfigs = DMAConfigs(w[12])
	i.Semaphore = w[13]
	i.SemIncrement = w[14]
	i.ComputeOp = DGEComputeOp(w[15])
	i.SrcStartAddr = Addr8(le.Uint64(w[16:24]))
	i.SrcStepElem = [2]int32{int32(le.Uint32(w[24:28])), int32(le.Uint32(w[28:32]))}
	i.SrcNumElem = [2]uint16{le.Uint16(w[32:34]), le.Uint16(w[34:36])}
	i.SrcElemSize = le.Uint16(w[36:38])
	i.SrcBoundReg = BoundCheckReg(w[38])
	i.DstBoundReg = BoundCheckReg(w[39])
	i.DstStartAddr = Addr8(le.Uint64(w[40:48]))
	i.DstStepElem = [2]int32{int32(le.Uint32(w[48:52])), int32(le.Uint32(w[52:56]))}
	i.DstNumElem = [2]uint16{le.Uint16(w[56:58]), le.Uint16(w[58:60])}
	i.DstElemSize = le.Uint16(w[60:62])
	i.InDtype = DType(w[62])
	i.OutDtype = DType(w[63])
}

func encodeDMADirect2D(w *[InstNBytes]byte, i *DMADirect2D) {
	putHeader(w, i.Header)
	putEvents(w, i.Events)
	w[12] = byte(i.DMAConfigs)
	w[13] = i.Semaphore
	w[14] = i.SemIncrement
	w[15] = byte(i.ComputeOp)
	le.PutUint64(w[16:24], uint64(i.SrcStartAddr))
	le.PutUint32(w[24:28], uint32(i.SrcStepElem[0]))
	le.PutUint32(w[28:32], uint32(i.SrcStepElem[1]))
	le.PutUint16(w[32:34], i.SrcNumElem[0])
	le.PutUint16(w[34:36], i.SrcNumElem[1])
	le.PutUint16(w[36:38], i.SrcElemSize)
	w[38] = byte(i.SrcBoundReg)
	w[39] = byte(i.DstBoundReg)
	le.PutUint64(w[40:48], uint64(i.DstStartAddr))
	le.PutUint32(w[48:52], uint32(i.DstStepElem[0]))
	le.PutUint32(w[52:56], uint32(i.DstStepElem[1]))
	le.PutUint16(w[56:58], i.DstNumElem[0])
	le.PutUint16(w[58:60], i.DstNumElem[1])
	le.PutUint16(w[60:62], i.DstElemSize)
	w[62] = byte(i.InDtype)
	w[63] = byte(i.OutDtype)
}

// ---- DMA_INDIRECT1D (FACTS §C.3) ----------------------------------------------------------

func decodeDMAIndirect1D(w *[InstNBytes]byte, i *DMAIndirect1D) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	i.Semaphore = w[12]
	i.SemIncrement = w[13]
	i.IdxNumActiveChannels = w[14]
	i.Flags = DMAIndirectFlags(w[15])
	i.SrcStartAddr = Addr8(le.Uint64(w[16:24]))
	i.SrcStepElem = int32(le.Uint32(w[24:28]))
	i.SrcNumElem = le.Uint16(w[28:30])
	i.SrcElemSize = le.Uint16(w[30:32])
	i.DstStartAddr = Addr8(le.Uint64(w[32:40]))
	i.DstStepElem = int32(le.Uint32(w[40:44]))
	i.DstNumElem = le.Uint16(w[44:46])
	i.DstElemSize = le.Uint16(w[46:48])
	i.SrcIdxStartAddr = Addr4(le.Uint32(w[48:52]))
	i.DstIdxStartAddr = Addr4(le.Uint32(w[52:56]))
	i.InDtype = DType(w[56])
	i.OutDtype = DType(w[57])
	i.SrcIdxBoundReg = BoundCheckReg(w[58])
	i.DstIdxBoundReg = BoundCheckReg(w[59])
	i.ComputeOp = DGEComputeOp(w[60])
	i.DMAConfigs = DMAConfigs(w[61])
	i.Reserved = [2]uint8{w[62], w[63]}
}

func encodeDMAIndirect1D(w *[InstNBytes]byte, i *DMAIndirect1D) {
	putHeader(w, i.Header)
	putEvents(w, i.Events)
	w[12] = i.Semaphore
	w[13] = i.SemIncrement
	w[14] = i.IdxNumActiveChannels
	w[15] = byte(i.Flags)
	le.PutUint64(w[16:24], uint64(i.SrcStartAddr))
	le.PutUint32(w[24:28], uint32(i.SrcStepElem))
	le.PutUint16(w[28:30], i.SrcNumElem)
	le.PutUint16(w[30:32], i.SrcElemSize)
	le.PutUint64(w[32:40], uint64(i.DstStartAddr))
	le.PutUint32(w[40:44], uint32(i.DstStepElem))
	le.PutUint16(w[44:46], i.DstNumElem)
	le.PutUint16(w[46:48], i.DstElemSize)
	le.PutUint32(w[48:52], uint32(i.SrcIdxStartAddr))
	le.PutUint32(w[52:56], uint32(i.DstIdxStartAddr))
	w[56] = byte(i.InDtype)
	w[57] = byte(i.OutDtype)
	w[58] = byte(i.SrcIdxBoundReg)
	w[59] = byte(i.DstIdxBoundReg)
	w[60] = byte(i.ComputeOp)
	w[61] = byte(i.DMAConfigs)
	w[62], w[63] = i.Reserved[0], i.Reserved[1]
}

// ---- DMA_GATHER_XPOSE (FACTS §C.4) --------------------------------------------------------

func decodeDMAGatherXpose(w *[InstNBytes]byte, i *DMAGatherXpose) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	i.Semaphore = w[12]
	i.DMAConfigs = DMAConfigs(w[13])
	i.IdxNumActiveChannels = w[14]
	i.SrcIdxBoundReg = BoundCheckReg(w[15])
	i.SrcStartAddr = Addr8(le.Uint64(w[16:24]))
	i.SrcStepElem = [2]int32{int32(le.Uint32(w[24:28])), int32(le.Uint32(w[28:32]))}
	i.SrcNumElem = [2]uint16{le.Uint16(w[32:34]), le.Uint16(w[34:36])}
	i.SrcIdxStartAddr = Addr4(le.Uint32(w[36:40]))
	i.DstStartAddr = Addr8(le.Uint64(w[40:48]))
	i.Reserved = [3]uint8{w[48], w[49], w[50]}
	i.DstBoundReg = BoundCheckReg(w[51])
	i.DstStepElem1 = int32(le.Uint32(w[52:56]))
	i.DstNumElem = [2]uint16{le.Uint16(w[56:58]), le.Uint16(w[58:60])}
	i.ElemSize = le.Uint16(w[60:62])
	i.Dtype = DTypePair(w[62])
	i.Flags = GatherTransposeFlags(w[63])
}

func encodeDMAGatherXpose(w *[InstNBytes]byte, i *DMAGatherXpose) {
	putHeader(w, i.Header)
	putEvents(w, i.Events)
	w[12] = i.Semaphore
	w[13] = byte(i.DMAConfigs)
	w[14] = i.IdxNumActiveChannels
	w[15] = byte(i.SrcIdxBoundReg)
	le.PutUint64(w[16:24], uint64(i.SrcStartAddr))
	le.PutUint32(w[24:28], uint32(i.SrcStepElem[0]))
	le.PutUint32(w[28:32], uint32(i.SrcStepElem[1]))
	le.PutUint16(w[32:34], i.SrcNumElem[0])
	le.PutUint16(w[34:36], i.SrcNumElem[1])
	le.PutUint32(w[36:40], uint32(i.SrcIdxStartAddr))
	le.PutUint64(w[40:48], uint64(i.DstStartAddr))
	w[48], w[49], w[50] = i.Reserved[0], i.Reserved[1], i.Reserved[2]
	w[51] = byte(i.DstBoundReg)
	le.PutUint32(w[52:56], uint32(i.DstStepElem1))
	le.PutUint16(w[56:58], i.DstNumElem[0])
	le.PutUint16(w[58:60], i.DstNumElem[1])
	le.PutUint16(w[60:62], i.ElemSize)
	w[62] = byte(i.Dtype)
	w[63] = byte(i.Flags)
}

// ---- DMA_DIRECT2D_XPOSE (FACTS §C.5, partial) ---------------------------------------------

func decodeDMADirect2DXpose(w *[InstNBytes]byte, i *DMADirect2DXpose) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	i.InDtype = DType(w[14])
	i.OutDtype = DType(w[15])
	i.SrcStartAddr = Addr8(le.Uint64(w[16:24]))
	i.TileSrcRowStep = int32(le.Uint32(w[36:40]))
	i.DstStartAddr = Addr8(le.Uint64(w[40:48]))
	i.DstRowStep = int32(le.Uint32(w[48:52]))
	i.TileSrcRows = w[60]
	i.TileSrcCols = w[61]
	i.Semaphore = w[62]
	i.DMAConfigs = DMAConfigs(w[63])
	i.Raw = *w
}

func encodeDMADirect2DXpose(w *[InstNBytes]byte, i *DMADirect2DXpose) {
	*w = i.Raw // the unknown bytes 12..13, 24..35, 52..59 travel unchanged
	putHeader(w, i.Header)
	putEvents(w, i.Events)
	w[14] = byte(i.InDtype)
	w[15] = byte(i.OutDtype)
	// The INFERRED fields override Raw when set; a struct filled through Raw alone keeps it.
	src, dst, step := i.Src(), i.Dst(), i.RowStep()
	le.PutUint64(w[16:24], uint64(src))
	le.PutUint32(w[36:40], uint32(i.TileSrcRowStep))
	le.PutUint64(w[40:48], uint64(dst))
	le.PutUint32(w[48:52], uint32(step))
	w[60] = i.TileSrcRows
	w[61] = i.TileSrcCols
	w[62] = i.Semaphore
	w[63] = byte(i.DMAConfigs)
}

// ---- Raw ----------------------------------------------------------------------------------

func decodeRaw(w *[InstNBytes]byte, i *Raw) {
	i.Header = getHeader(w)
	i.Events = getEvents(w)
	i.Bytes = *w
}

func encodeRaw(w *[InstNBytes]byte, i *Raw) {
	*w = i.Bytes
	putHeader(w, i.Header)
	putEvents(w, i.Events)
}
