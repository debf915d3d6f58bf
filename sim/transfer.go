package sim

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// Moving arrays between .npy files and the machine's memory (DESIGN.md §7), in the argument
// syntax of `tpbsim run`:
//
//	load    ADDR=FILE.npy[:DTYPE]            (ParseLoad, Machine.Load)
//	dump    ADDR=SHAPE:DTYPE:FILE.npy[:float32] (ParseDump, DumpSpec.Render)
//	expect  ADDR=SHAPE:DTYPE:FILE.npy         (ParseExpect, ExpectSpec.Check)
//
// In SBUF/PSUM an array's first axis is the partition axis and the rest of each row is laid out
// contiguously from the offset. numpy has no bfloat16 or fp8: those travel as raw bits (unsigned
// integers of their width) or as values converted with :DTYPE.

// MaxTransferBytes is tpbsim's absolute limit on the bytes of one loaded or dumped array, and on
// the dumps of a run together: each is held whole in memory (a dump twice while it is encoded).
// It is the default HBM cap (mem.DefaultHBMCapBytes), so by default the cap is what a user meets.
const MaxTransferBytes = mem.DefaultHBMCapBytes

// npyHeaderMax is the most a .npy file holds besides its data (preamble, length, header): a
// larger file cannot hold an array under a limit.
const npyHeaderMax = 12 + 1<<20

// Float32Suffix after a dump's FILE.npy asks for float32 values instead of the dtype's raw bits.
const Float32Suffix = ":float32"

// LoadSpec is one load: the array of File written at At, its values converted to Kind first
// unless Kind is num.INVALID (the file's bytes as they are).
type LoadSpec struct {
	Arg  string // the argument as given, for messages
	At   isa.Location
	File string
	Kind num.Kind
}

// ParseLoad reads ADDR=FILE.npy[:DTYPE] for generation g (isa.ParseAddress). The part after the
// last ':' is a DTYPE when it names an element type; otherwise the whole text is the file name,
// unless no such file exists and the suffix looks like a type name (no path separator, no
// '.'), which is reported as an unknown dtype rather than as a missing file "x.npy:NOPE".
func ParseLoad(arg string, g isa.Generation) (LoadSpec, error) {
	l := LoadSpec{Arg: arg}
	addrS, rest, ok := strings.Cut(arg, "=")
	if !ok || rest == "" {
		return l, errors.New("want ADDR=FILE.npy[:DTYPE]")
	}
	var err error
	if l.At, err = isa.ParseAddress(addrS, g); err != nil {
		return l, err
	}
	l.File, l.Kind, err = splitLoadFile(rest)
	return l, err
}

func splitLoadFile(rest string) (string, num.Kind, error) {
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return rest, num.INVALID, nil
	}
	file, suffix := rest[:i], rest[i+1:]
	if k, err := num.ParseKind(suffix); err == nil && suffix != "" {
		return file, k, nil
	}
	if _, err := os.Stat(rest); err == nil || !typeSuffix(suffix) {
		return rest, num.INVALID, nil // a file name with a ':' in it
	}
	if suffix == "" {
		return "", num.INVALID, fmt.Errorf("empty DTYPE after %s: (want FILE.npy[:DTYPE], e.g. x.npy:bf16)", file)
	}
	return "", num.INVALID, fmt.Errorf("unknown dtype %s after %s (want FILE.npy[:DTYPE], e.g. x.npy:bf16)", suffix, file)
}

// typeSuffix reports whether the text after a file name's last ':' reads as a suffix (:DTYPE,
// :float32) rather than part of the name: no path separator and no '.'.
func typeSuffix(s string) bool { return !strings.ContainsAny(s, `/\.`) }

// ReadNPY reads a .npy file.
func ReadNPY(path string) (*npy.Array, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return npy.Read(fh)
}

// Load writes the array of l.File at l.At (Machine.WriteTensor), converted to l.Kind when one
// is given. The file is refused before it is read when it is larger than TransferLimit allows
// there, and the array when it (converted) is; a float64 array (numpy's default float, which no
// device element type is) needs a Kind.
func (m *Machine) Load(l LoadSpec) error {
	st, err := os.Stat(l.File)
	if err != nil {
		return err
	}
	if limit, why := m.TransferLimit(l.At, true); st.Size() > 0 && uint64(st.Size()) > limit+npyHeaderMax {
		return fmt.Errorf("%s is %s: more than %s", l.File, FormatBytes(uint64(st.Size())), why)
	}
	a, err := ReadNPY(l.File)
	if err != nil {
		return err
	}
	if _, ok := npy.KindOf(a.Dtype); !ok && l.Kind == num.INVALID {
		name := a.Dtype
		if name == "f8" {
			name = "float64"
		}
		return fmt.Errorf("%s holds %s, which no device element type is (the device has no FP64): add :DTYPE to convert "+
			"the values on load (%s:FP32, :BF16, :FP16, ...), or save the array as float32", l.File, name, l.File)
	}
	data, size := a.Data, npy.ItemSize(a.Dtype)
	n := uint64(len(a.Data))
	if l.Kind != num.INVALID && size > 0 {
		n = n / uint64(size) * uint64(l.Kind.Size()) // the bytes after conversion
	}
	if err := m.checkTransferSize(l.At, n, true); err != nil {
		return fmt.Errorf("array %v of %s: %w", a.Shape, npy.TypeName(a.Dtype), err)
	}
	if l.Kind != num.INVALID {
		if data, err = a.Convert(l.Kind); err != nil {
			return err
		}
		size = l.Kind.Size()
	}
	shape := a.Shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	return m.WriteTensor(l.At, shape, size, data)
}

// TransferLimit is the largest array a load (load true) or a dump may move at at, and what the
// limit is: for a load into HBM the run's HBM cap (no more can be written there), on chip the
// size of the largest on-chip memory; never more than MaxTransferBytes. A dump of HBM allocates
// no HBM (never-written bytes read as zero), so the cap does not bound it.
func (m *Machine) TransferLimit(at isa.Location, load bool) (uint64, string) {
	limit, why := uint64(MaxTransferBytes), fmt.Sprintf("tpbsim's limit of %s on one array", FormatBytes(MaxTransferBytes))
	mm := m.Memory()
	if at.Space == isa.SpaceHBM {
		if !load {
			return limit, why
		}
		if c := mm.Options().HBMCapBytes; c < limit {
			limit, why = c, fmt.Sprintf("the run's HBM cap of %s (--hbm-cap)", FormatBytes(c))
		}
		return limit, why
	}
	chip := uint64(0)
	for _, r := range []mem.Region{mem.SBUF, mem.PSUM} {
		chip = max(chip, uint64(mm.NumPartitions(r))*uint64(mm.PartitionActive(r)))
	}
	if chip < limit {
		limit, why = chip, fmt.Sprintf("the %s of on-chip memory", FormatBytes(chip))
	}
	return limit, why
}

func (m *Machine) checkTransferSize(at isa.Location, n uint64, load bool) error {
	if limit, why := m.TransferLimit(at, load); n > limit {
		return fmt.Errorf("%s is more than %s", FormatBytes(n), why)
	}
	return nil
}

// FormatBytes prints a byte count exactly, with a binary-unit reading when it is large.
func FormatBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%d bytes (%.2f GiB)", n, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.2f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.2f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// ParseSize reads a byte count: a number (decimal or 0x-hex) with an optional binary suffix K,
// M, G or T (or KiB, ...), at least 1 and within 64 bits.
func ParseSize(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mul := uint64(1)
	for _, u := range []struct {
		suf string
		m   uint64
	}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}} {
		if strings.HasSuffix(t, u.suf+"IB") || strings.HasSuffix(t, u.suf) {
			t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), u.suf)
			mul = u.m
			break
		}
	}
	v, err := isa.ParseNumber(t)
	if err != nil {
		return 0, fmt.Errorf("bad size %q: %v", s, err)
	}
	if v > math.MaxUint64/mul {
		return 0, fmt.Errorf("bad size %q: overflows 64 bits", s)
	}
	if v == 0 {
		return 0, fmt.Errorf("bad size %q: must be at least 1", s)
	}
	return v * mul, nil
}

// ParseShape reads a dump's SHAPE: decimal dimensions >= 1 separated by 'x' (or 'X', or ',' as
// `dge --shape` writes them), at most MaxTransferBytes elements. An empty dimension ("128xx64")
// is an error, not skipped, and "0x64" is refused as a hex number, not read as a 0-by-64 array.
func ParseShape(s string) ([]int, error) {
	want := "want decimal dimensions >= 1 separated by 'x', e.g. 128x64"
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, fmt.Errorf("empty shape (%s)", want)
	}
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		return nil, fmt.Errorf("shape %q looks like a hex number, and a 0 dimension is not allowed (%s)", s, want)
	}
	var shape []int
	total := uint64(1)
	for _, p := range strings.Split(strings.NewReplacer("X", "x", ",", "x").Replace(t), "x") {
		if p == "" {
			return nil, fmt.Errorf("bad shape %q: an empty dimension (%s)", s, want)
		}
		u, err := strconv.ParseUint(p, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("bad shape %q: dimension %q overflows 64 bits", s, p)
		}
		if err != nil || strings.HasPrefix(p, "+") {
			return nil, fmt.Errorf("bad shape %q: dimension %q is not a decimal number (%s)", s, p, want)
		}
		if u == 0 {
			return nil, fmt.Errorf("bad shape %q: a dimension is 0 (%s)", s, want)
		}
		if u > MaxTransferBytes/total {
			return nil, fmt.Errorf("bad shape %q: too many elements (more than %d; tpbsim's limit on one dump is %s)", s, uint64(MaxTransferBytes), FormatBytes(MaxTransferBytes))
		}
		total *= u
		shape = append(shape, int(u))
	}
	return shape, nil
}

// DumpSpec is one dump: the Shape array of Kind elements at At, written to File as the kind's
// own numpy type where numpy has one and as raw bits otherwise, or as float32 values (AsF32).
type DumpSpec struct {
	Arg   string // the argument as given, for messages
	At    isa.Location
	Shape []int
	Kind  num.Kind
	File  string
	AsF32 bool
}

// ParseDump reads ADDR=SHAPE:DTYPE:FILE.npy[:float32] for generation g (ParseShape for SHAPE).
func ParseDump(arg string, g isa.Generation) (DumpSpec, error) {
	d := DumpSpec{Arg: arg}
	addrS, rest, ok := strings.Cut(arg, "=")
	parts := strings.SplitN(rest, ":", 3)
	if !ok || len(parts) != 3 || parts[2] == "" {
		return d, errors.New("want ADDR=SHAPE:DTYPE:FILE.npy")
	}
	var err error
	if d.At, err = isa.ParseAddress(addrS, g); err != nil {
		return d, err
	}
	if d.Shape, err = ParseShape(parts[0]); err != nil {
		return d, err
	}
	if d.Kind, err = num.ParseKind(parts[1]); err != nil {
		return d, err
	}
	if d.Kind.Size() == 0 || !d.Kind.Numeric() {
		return d, fmt.Errorf("element type %v cannot be dumped", d.Kind)
	}
	d.File = parts[2]
	if f, ok := strings.CutSuffix(d.File, Float32Suffix); ok && f != "" {
		d.File, d.AsF32 = f, true
		return d, nil
	}
	// Any other suffix that looks like one (after the last ':', no path separator, no '.') is a
	// mistake, not part of the file's name: "x.npy:f32" would otherwise write a file "x.npy:f32".
	if i := strings.LastIndexByte(d.File, ':'); i > 0 && typeSuffix(d.File[i+1:]) {
		return d, fmt.Errorf("unknown suffix :%s after %s (want FILE.npy, or FILE.npy%s for float32 values)", d.File[i+1:], d.File[:i], Float32Suffix)
	}
	return d, nil
}

// Bytes is the dump's size (ParseShape bounds the element count, so it does not wrap).
func (d DumpSpec) Bytes() uint64 {
	size := uint64(d.Kind.Size())
	for _, n := range d.Shape {
		size *= uint64(n)
	}
	return size
}

// Check tells whether the dump's range is readable on m (the checks of Machine.ReadTensor on
// chip; the HBM window for HBM, without reading a large range) and within TransferLimit: the dump
// is held in memory whole, so a size past it is refused before a run, not by the allocator.
func (d DumpSpec) Check(m *Machine) error {
	size := d.Bytes()
	if err := m.checkTransferSize(d.At, size, false); err != nil {
		return fmt.Errorf("shape %v of %v: %w", d.Shape, d.Kind, err)
	}
	if d.At.Space != isa.SpaceHBM {
		_, err := m.ReadTensor(d.At, d.Shape, d.Kind.Size())
		return err
	}
	if end := d.At.Offset + size; end < d.At.Offset || end > isa.DMALocalBase {
		return fmt.Errorf("%d bytes from hbm:0x%x pass the HBM window 0x%x", size, d.At.Offset, uint64(isa.DMALocalBase))
	}
	return nil
}

// CheckDumps checks every dump (DumpSpec.Check) and that together they stay within
// MaxTransferBytes. The error names the dump (its Arg) it failed on.
func CheckDumps(m *Machine, dumps []DumpSpec) error {
	total := uint64(0)
	for _, d := range dumps {
		if err := d.Check(m); err != nil {
			return fmt.Errorf("%s: %w", d.Arg, err)
		}
		if total += d.Bytes(); total > MaxTransferBytes {
			return fmt.Errorf("%s: the dumps come to %s, more than tpbsim's limit of %s on the dumps of one run",
				d.Arg, FormatBytes(total), FormatBytes(MaxTransferBytes))
		}
	}
	return nil
}

// Render returns the dump's .npy bytes. The array is read straight into the buffer that is
// written out, after its header (npy.Header), so a large dump is held in memory once, not twice.
func (d DumpSpec) Render(m *Machine) ([]byte, error) {
	if d.AsF32 {
		return d.renderFloat32(m)
	}
	typ, _ := npy.TypeOf(d.Kind)
	hdr, err := npy.Header(typ, d.Shape)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, uint64(len(hdr))+d.Bytes())
	copy(buf, hdr)
	if err := m.ReadTensorInto(d.At, d.Shape, d.Kind.Size(), buf[len(hdr):]); err != nil {
		return nil, err
	}
	return buf, nil
}

// renderFloat32 is Render for a dump written as float32 values: each element widened to FP32
// (exact for every float type and for integers up to 2^24).
func (d DumpSpec) renderFloat32(m *Machine) ([]byte, error) {
	data, err := m.ReadTensor(d.At, d.Shape, d.Kind.Size())
	if err != nil {
		return nil, err
	}
	n := len(data) / d.Kind.Size()
	out := make([]byte, 4*n)
	if err := num.ConvertSlice(out, num.FP32, data, d.Kind, n); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := npy.Write(&b, &npy.Array{Dtype: "f4", Shape: d.Shape, Data: out}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// RawBits reports whether the dump holds its kind as raw bits (numpy has no such type and
// AsF32 was not asked for), and numpy's name of the type it is written as ("uint16").
func (d DumpSpec) RawBits() (bool, string) {
	typ, own := npy.TypeOf(d.Kind)
	return !own && !d.AsF32, npy.TypeName(typ)
}

// ExpectSpec is one expectation: after a run the memory of the dump's range must hold Want
// (elements of Kind), read from File (its dtype's own numpy type or raw bits, or values
// converted to Kind through FP32, as a load converts them).
type ExpectSpec struct {
	DumpSpec
	Want []byte
}

// ParseExpect reads ADDR=SHAPE:DTYPE:FILE.npy for generation g, checks the range on m
// (DumpSpec.Check) and reads the reference, whose shape must be SHAPE.
func ParseExpect(m *Machine, arg string, g isa.Generation) (ExpectSpec, error) {
	d, err := ParseDump(arg, g)
	if err != nil {
		return ExpectSpec{}, err
	}
	if d.AsF32 {
		return ExpectSpec{}, fmt.Errorf("%s is for --dump; --expect reads float32 references as they are", Float32Suffix)
	}
	if err := d.Check(m); err != nil {
		return ExpectSpec{}, err
	}
	a, err := ReadNPY(d.File)
	if err != nil {
		return ExpectSpec{}, err
	}
	if !sameShape(a.Shape, d.Shape) {
		return ExpectSpec{}, fmt.Errorf("%s has shape %v, the expectation %v", d.File, a.Shape, d.Shape)
	}
	want, err := a.Convert(d.Kind)
	if err != nil {
		return ExpectSpec{}, fmt.Errorf("%s: %w", d.File, err)
	}
	return ExpectSpec{DumpSpec: d, Want: want}, nil
}

// Check compares the memory with the expectation (Machine.Expect: an *ExpectError naming the
// first differing element).
func (e ExpectSpec) Check(m *Machine) error {
	return m.Expect(e.At, e.Shape, e.Kind, e.Want, e.File)
}

// sameShape compares an array's shape (a 0-d array as [1]) with an expected one.
func sameShape(a, b []int) bool {
	if len(a) == 0 {
		a = []int{1}
	}
	return slices.Equal(a, b)
}
