package isa

import "strings"

// ValueKind is how a wire field's value is read and printed.
type ValueKind uint8

const (
	KUint         ValueKind = iota // unsigned integer
	KInt                           // two's-complement signed integer
	KAddr4                         // ADDR4 word
	KAddr8                         // ADDR8 word
	KOpcode                        // OPCODE enum
	KDType                         // DTYPE enum
	KALUOp                         // ALU_OP enum
	KSubdim                        // TENSOR_SUBDIM enum
	KWaitMode                      // WAIT_MODE enum
	KUpdateMode                    // UPDATE_MODE enum
	KComputeOp                     // DGE_COMPUTE_OP enum
	KIndirectMode                  // DMA_INDIRECT_FLAGS.indirect_mode
	KIndirectDim                   // INDIRECT_DIM
	KBlob                          // opaque bytes (unknown or raw), printed as hex
)

// Field is one row of a struct's wire layout: the single description of where a field lives
// that the assembler, the disassembler, the JSON form, the violation offsets, `explain` and the
// gcc oracle test all read. Encode/Decode are hand-written mirrors checked against it by test.
type Field struct {
	Path    string    // header field name; dotted for sub-structs: "src_mem_pattern.num_elem"
	Offset  int       // byte offset of element 0 in the 64-byte word
	Size    int       // bytes per element: 1, 2, 4 or 8
	Count   int       // number of elements (1 for a scalar)
	Shift   uint8     // bitfield: first bit within the element (LSB first)
	Bits    uint8     // bitfield width; 0 = the whole element
	Kind    ValueKind // how to read and print it
	Default uint64    // the value an assembler starts from (inst_word_len 16; else 0)
}

// IsArray reports an array field (Count > 1).
func (f Field) IsArray() bool { return f.Count > 1 }

// ByteLen is the number of bytes the field spans.
func (f Field) ByteLen() int { return f.Size * f.Count }

// Get reads element idx from a word (sign-extended for KInt, as two's complement in a uint64).
func (f Field) Get(w *[InstNBytes]byte, idx int) uint64 {
	o := f.Offset + idx*f.Size
	var v uint64
	switch f.Size {
	case 1:
		v = uint64(w[o])
	case 2:
		v = uint64(le.Uint16(w[o:]))
	case 4:
		v = uint64(le.Uint32(w[o:]))
	case 8:
		v = le.Uint64(w[o:])
	}
	if f.Bits != 0 {
		v = v >> f.Shift & (1<<f.Bits - 1)
	}
	if f.Kind == KInt && f.Size < 8 {
		sh := 64 - 8*uint(f.Size)
		v = uint64(int64(v<<sh) >> sh)
	}
	return v
}

// Set writes element idx (truncating v to the field's width).
func (f Field) Set(w *[InstNBytes]byte, idx int, v uint64) {
	o := f.Offset + idx*f.Size
	if f.Bits != 0 {
		m := uint64(1)<<f.Bits - 1
		old := f.raw(w, o)
		v = old&^(m<<f.Shift) | (v&m)<<f.Shift
	}
	switch f.Size {
	case 1:
		w[o] = byte(v)
	case 2:
		le.PutUint16(w[o:], uint16(v))
	case 4:
		le.PutUint32(w[o:], uint32(v))
	case 8:
		le.PutUint64(w[o:], v)
	}
}

func (f Field) raw(w *[InstNBytes]byte, o int) uint64 {
	switch f.Size {
	case 1:
		return uint64(w[o])
	case 2:
		return uint64(le.Uint16(w[o:]))
	case 4:
		return uint64(le.Uint32(w[o:]))
	}
	return le.Uint64(w[o:])
}

// Max is the largest unsigned value the field holds.
func (f Field) Max() uint64 {
	if f.Bits != 0 {
		return 1<<f.Bits - 1
	}
	if f.Size == 8 {
		return ^uint64(0)
	}
	return 1<<(8*uint(f.Size)) - 1
}

// TensorGroup names a TENSOR4D sub-struct of a layout, which the assembly syntax writes
// compactly (`src_mem_pattern=sbuf:0:0x100[32@1,4@32]`).
type TensorGroup struct {
	Path   string // "src_mem_pattern"
	Alias  string // "src"
	Offset int
}

// StructLayout is the wire layout of one struct kind.
type StructLayout struct {
	Kind    StructKind
	CName   string // the ISA header's struct name
	Fields  []Field
	Tensors []TensorGroup
	Partial string // non-empty when the layout is only partly known: what is unknown
	index   map[string]int
}

// Field looks a field up by its path (without an index).
func (l *StructLayout) Field(path string) (Field, bool) {
	i, ok := l.index[path]
	if !ok {
		return Field{}, false
	}
	return l.Fields[i], true
}

// Offset is the byte offset of path (optionally with an index, "num_elem[2]"), or -1.
func (l *StructLayout) Offset(path string) int {
	p, idx := splitIndex(path)
	if f, ok := l.Field(p); ok {
		return f.Offset + idx*f.Size
	}
	for _, t := range l.Tensors {
		if t.Path == p {
			return t.Offset
		}
	}
	for _, f := range l.Fields { // a group of bitfields or a sub-struct: its first byte
		if strings.HasPrefix(f.Path, p+".") {
			return f.Offset
		}
	}
	return -1
}

func splitIndex(path string) (string, int) {
	if j := strings.IndexByte(path, '['); j > 0 && strings.HasSuffix(path, "]") {
		n := 0
		for _, c := range path[j+1 : len(path)-1] {
			if c < '0' || c > '9' {
				return path, 0
			}
			n = n*10 + int(c-'0')
		}
		return path[:j], n
	}
	return path, 0
}

func headerEvents() []Field {
	return []Field{
		{Path: "opcode", Offset: 0, Size: 1, Count: 1, Kind: KOpcode},
		{Path: "inst_word_len", Offset: 1, Size: 1, Count: 1, Kind: KUint, Default: InstWordLen},
		{Path: "debug_cmd", Offset: 2, Size: 1, Count: 1, Kind: KUint},
		{Path: "debug_hint", Offset: 3, Size: 1, Count: 1, Kind: KUint},
		{Path: "events.wait_mode", Offset: 4, Size: 1, Count: 1, Kind: KWaitMode},
		{Path: "events.wait_idx", Offset: 5, Size: 1, Count: 1, Kind: KUint},
		{Path: "events.update_mode", Offset: 6, Size: 1, Count: 1, Kind: KUpdateMode},
		{Path: "events.update_idx", Offset: 7, Size: 1, Count: 1, Kind: KUint},
		{Path: "events.semaphore_value", Offset: 8, Size: 4, Count: 1, Kind: KUint},
	}
}

func tensorFields(name string, off int) []Field {
	return []Field{
		{Path: name + ".start_addr", Offset: off, Size: 4, Count: 1, Kind: KAddr4},
		{Path: name + ".step_elem", Offset: off + 4, Size: 2, Count: 4, Kind: KInt},
		{Path: name + ".num_elem", Offset: off + 12, Size: 2, Count: 4, Kind: KUint},
	}
}

func u8(path string, off int) Field {
	return Field{Path: path, Offset: off, Size: 1, Count: 1, Kind: KUint}
}
func u16(path string, off int) Field {
	return Field{Path: path, Offset: off, Size: 2, Count: 1, Kind: KUint}
}
func i32(path string, off, n int) Field {
	return Field{Path: path, Offset: off, Size: 4, Count: n, Kind: KInt}
}
func enum(path string, off int, k ValueKind) Field {
	return Field{Path: path, Offset: off, Size: 1, Count: 1, Kind: k}
}
func bytesF(path string, off, n int) Field {
	return Field{Path: path, Offset: off, Size: 1, Count: n, Kind: KUint}
}
func blob(path string, off, n int) Field {
	return Field{Path: path, Offset: off, Size: 1, Count: n, Kind: KBlob}
}
func bits(path string, off int, shift, width uint8, k ValueKind) Field {
	return Field{Path: path, Offset: off, Size: 1, Count: 1, Shift: shift, Bits: width, Kind: k}
}
func addr8(path string, off int) Field {
	return Field{Path: path, Offset: off, Size: 8, Count: 1, Kind: KAddr8}
}
func addr4(path string, off int) Field {
	return Field{Path: path, Offset: off, Size: 4, Count: 1, Kind: KAddr4}
}

func dmaConfigs(name string, off int) []Field {
	return []Field{bits(name+".priority_class", off, 0, 3, KUint), bits(name+".reserved", off, 3, 5, KUint)}
}

func boundReg(name string, off int) []Field {
	return []Field{bits(name+".bc_reg", off, 0, 6, KUint), bits(name+".bc_disable_oob_error_notif", off, 6, 1, KUint),
		bits(name+".bc_enabled", off, 7, 1, KUint)}
}

func cat(parts ...[]Field) []Field {
	var out []Field
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var layouts = func() map[StructKind]*StructLayout {
	m := map[StructKind]*StructLayout{
		StructS4D4_TR: {CName: "NEURON_ISA_TPB_S4D4_TR_STRUCT", Fields: cat(headerEvents(),
			tensorFields("src_mem_pattern", 12),
			[]Field{enum("in_dtype", 32, KDType), enum("out_dtype", 33, KDType), u8("num_active_channels", 34),
				u8("negated", 35), enum("op", 36, KALUOp), enum("op_dim", 37, KSubdim), u8("mask_enable", 38),
				bytesF("reserved1", 39, 5)},
			tensorFields("dst_mem_pattern", 44)),
			Tensors: []TensorGroup{{"src_mem_pattern", "src", 12}, {"dst_mem_pattern", "dst", 44}}},
		StructCTRL_IM: {CName: "NEURON_ISA_TPB_CTRL_IM_STRUCT", Fields: cat(headerEvents(), []Field{
			u16("param_ram_offset", 12), u8("imm_ptr_select", 14), bytesF("reserved0", 15, 17), bytesF("immediate", 32, 32)})},
		StructD4_MR: {CName: "NEURON_ISA_TPB_D4_MR_STRUCT", Fields: cat(headerEvents(), []Field{
			blob("unknown12", 12, 16), {Path: "dst_element_count", Offset: 28, Size: 4, Count: 1, Kind: KUint},
			enum("dtype", 32, KDType), blob("unknown33", 33, 1), u8("num_active_channels", 34), blob("unknown35", 35, 1),
			u8("serialization_mode", 36), blob("unknown37", 37, 3), {Path: "set_value", Offset: 40, Size: 4, Count: 1, Kind: KUint}},
			tensorFields("dst_mem_pattern", 44)),
			Tensors: []TensorGroup{{"dst_mem_pattern", "dst", 44}},
			Partial: "bytes 12..27, 33, 35 and 37..39 are not described by the sources (kept raw)"},
		StructDMA_DIRECT2D: {CName: "NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT", Fields: cat(headerEvents(),
			dmaConfigs("dma_configs", 12),
			[]Field{u8("semaphore", 13), u8("sem_increment", 14), enum("compute_op", 15, KComputeOp),
				addr8("src_start_addr", 16), i32("src_step_elem", 24, 2), {Path: "src_num_elem", Offset: 32, Size: 2, Count: 2, Kind: KUint},
				u16("src_elem_size", 36)},
			boundReg("src_bound_reg", 38), boundReg("dst_bound_reg", 39),
			[]Field{addr8("dst_start_addr", 40), i32("dst_step_elem", 48, 2), {Path: "dst_num_elem", Offset: 56, Size: 2, Count: 2, Kind: KUint},
				u16("dst_elem_size", 60), enum("in_dtype", 62, KDType), enum("out_dtype", 63, KDType)})},
		StructDMA_INDIRECT1D: {CName: "NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT", Fields: cat(headerEvents(),
			[]Field{u8("semaphore", 12), u8("sem_increment", 13), u8("idx_num_active_channels", 14),
				bits("flags.indirect_mode", 15, 0, 2, KIndirectMode), bits("flags.idx_bound_is_err", 15, 2, 1, KUint),
				bits("flags.non_unique_dst_idx", 15, 3, 1, KUint), bits("flags.gather_dim", 15, 4, 2, KIndirectDim),
				bits("flags.scatter_dim", 15, 6, 2, KIndirectDim),
				addr8("src_start_addr", 16), i32("src_step_elem", 24, 1), u16("src_num_elem", 28), u16("src_elem_size", 30),
				addr8("dst_start_addr", 32), i32("dst_step_elem", 40, 1), u16("dst_num_elem", 44), u16("dst_elem_size", 46),
				addr4("src_idx_start_addr", 48), addr4("dst_idx_start_addr", 52),
				enum("in_dtype", 56, KDType), enum("out_dtype", 57, KDType)},
			boundReg("src_idx_bound_reg", 58), boundReg("dst_idx_bound_reg", 59),
			[]Field{enum("compute_op", 60, KComputeOp)}, dmaConfigs("dma_configs", 61),
			[]Field{bytesF("reserved", 62, 2)})},
		StructDMA_GATHER_XPOSE: {CName: "NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT", Fields: cat(headerEvents(),
			[]Field{u8("semaphore", 12)}, dmaConfigs("dma_configs", 13),
			[]Field{u8("idx_num_active_channels", 14)}, boundReg("src_idx_bound_reg", 15),
			[]Field{addr8("src_start_addr", 16), i32("src_step_elem", 24, 2), {Path: "src_num_elem", Offset: 32, Size: 2, Count: 2, Kind: KUint},
				addr4("src_idx_start_addr", 36), addr8("dst_start_addr", 40), bytesF("reserved", 48, 3)},
			boundReg("dst_bound_reg", 51),
			[]Field{i32("dst_step_elem_1", 52, 1), {Path: "dst_num_elem", Offset: 56, Size: 2, Count: 2, Kind: KUint},
				u16("elem_size", 60), bits("dtype.dtype_lo", 62, 0, 4, KDType), bits("dtype.dtype_hi", 62, 4, 4, KDType),
				bits("flags.gather_dim", 63, 0, 2, KIndirectDim), bits("flags.reserved", 63, 2, 6, KUint)})},
		StructDMA_DIRECT2D_XPOSE: {CName: "NEURON_ISA_TPB_DMA_DIRECT2D_XPOSE_STRUCT", Fields: cat(headerEvents(),
			[]Field{blob("unknown12", 12, 2), enum("in_dtype", 14, KDType), enum("out_dtype", 15, KDType),
				addr8("src_start_addr", 16), blob("unknown24", 24, 12), i32("tile_src_row_step", 36, 1),
				addr8("dst_start_addr", 40), i32("dst_row_step", 48, 1), blob("unknown52", 52, 8),
				u8("tile_src_rows", 60), u8("tile_src_cols", 61), u8("semaphore", 62)},
			dmaConfigs("dma_configs", 63)),
			Partial: "bytes 12..13, 16..35 and 40..59 are not described by the sources: src_start_addr (16), dst_start_addr (40) and dst_row_step (48, " +
				"int32 elements; 0 = one SBUF partition) are tpbsim's INFERRED reading, which run executes (tpbsim explain dge.direct2d_xpose_layout); " +
				"bytes 12..13, 24..35 and 52..59 are kept raw"},
		StructNone: {CName: "(no modelled struct)", Fields: cat(headerEvents(), []Field{blob("payload", 12, 52)}),
			Partial: "tpbsim models no struct for this opcode: bytes 12..63 are kept raw"},
	}
	for k, l := range m {
		l.Kind = k
		l.index = map[string]int{}
		for i, f := range l.Fields {
			l.index[f.Path] = i
		}
	}
	return m
}()

// Layout is the wire layout of a struct kind (StructNone: header, events and a raw payload).
func Layout(k StructKind) *StructLayout {
	if int(k) < len(layoutArr) && layoutArr[k] != nil {
		return layoutArr[k]
	}
	return layoutArr[StructNone]
}

var layoutArr = func() (t [8]*StructLayout) {
	for k, l := range layouts {
		t[k] = l
	}
	return t
}()

// LayoutOf is the layout an opcode's word decodes with.
func LayoutOf(op Opcode) *StructLayout { return Layout(structOf[op]) }

// StructKinds lists the modelled struct kinds (not StructNone).
var StructKinds = []StructKind{StructS4D4_TR, StructCTRL_IM, StructD4_MR, StructDMA_DIRECT2D,
	StructDMA_INDIRECT1D, StructDMA_GATHER_XPOSE, StructDMA_DIRECT2D_XPOSE}
