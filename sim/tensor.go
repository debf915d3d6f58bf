package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Tensor placement for loading inputs and dumping results (DESIGN.md §7): in SBUF or PSUM the
// first axis of the array is the partition axis, starting at the address's partition, and the
// rest of each row is laid out contiguously from the address's byte offset; in HBM the whole
// array is contiguous from the address. A raw number is an on-chip ADDR4-style byte address.

func (m *Machine) tensorRows(at isa.Location, shape []int, elemSize int) (loc mem.Loc, hbm bool, rows, rowBytes int, err error) {
	total64 := int64(elemSize)
	for _, d := range shape {
		if d < 0 {
			return loc, false, 0, 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		// Bounded before multiplying, so that no product wraps; 16 GiB, and what an int holds.
		if d != 0 && (total64 > (1<<34)/int64(d) || total64*int64(d) > math.MaxInt) {
			return loc, false, 0, 0, fmt.Errorf("shape %v is too large", shape)
		}
		total64 *= int64(d)
	}
	total := int(total64)
	switch at.Space {
	case isa.SpaceHBM:
		return loc, true, 1, total, nil
	case isa.SpaceSBUF, isa.SpacePSUM:
		loc = mem.Loc{Region: mem.SBUF, Partition: at.Partition, Offset: uint32(at.Offset)}
		if at.Space == isa.SpacePSUM {
			loc.Region = mem.PSUM
		}
	case isa.SpaceRaw:
		if at.Offset > isa.TPBPartitionAddrMask {
			if lo := at.Offset - isa.DMALocalBase; at.Offset >= isa.DMALocalBase && lo <= isa.TPBPartitionAddrMask {
				// the DMA engines' device address of an on-chip byte (the form dge takes)
				if l, err := m.mem.ResolveAddr(uint32(lo)); err == nil {
					return loc, false, 0, 0, fmt.Errorf("raw address 0x%x is the DMA device address of on-chip byte 0x%x; tensors are placed by on-chip address: write %s or 0x%x (or hbm:ADDR for HBM)",
						at.Offset, lo, strings.ToLower(l.String()), lo)
				}
			}
			return loc, false, 0, 0, fmt.Errorf("raw address 0x%x is not an on-chip address (at most 0x%x; write hbm:ADDR for HBM)", at.Offset, isa.TPBPartitionAddrMask)
		}
		if loc, err = m.mem.ResolveAddr(uint32(at.Offset)); err != nil {
			return loc, false, 0, 0, err
		}
	default:
		return loc, false, 0, 0, fmt.Errorf("address %v cannot hold a tensor", at)
	}
	rows = 1
	if len(shape) > 0 {
		rows = shape[0]
	}
	if rows == 0 {
		return loc, false, 0, 0, nil
	}
	rowBytes = total / rows
	if n := m.mem.NumPartitions(loc.Region); loc.Partition+rows > n {
		hint := ""
		if len(shape) == 1 {
			hint = fmt.Sprintf("; the first axis is the partition axis, so a 1-D array takes one partition per element: reshape it to (1, %d) to lay it along one partition", rows)
		}
		return loc, false, 0, 0, fmt.Errorf("%d rows from partition %d pass the last %v partition (%d)%s", rows, loc.Partition, loc.Region, n-1, hint)
	}
	if act := m.mem.PartitionActive(loc.Region); int(loc.Offset)+rowBytes > act {
		return loc, false, 0, 0, fmt.Errorf("a row of %d bytes at offset 0x%x passes the %v active size 0x%x on %v", rowBytes, loc.Offset, loc.Region, act, m.gen)
	}
	return loc, false, rows, rowBytes, nil
}

// WriteTensor stores a C-order array of the given shape (elemSize bytes per element, data
// little-endian) at at. Nothing is written unless all of it fits.
func (m *Machine) WriteTensor(at isa.Location, shape []int, elemSize int, data []byte) error {
	loc, hbm, rows, rowBytes, err := m.tensorRows(at, shape, elemSize)
	if err != nil {
		return err
	}
	if len(data) != rows*rowBytes {
		return fmt.Errorf("data is %d bytes, shape %v x %d bytes needs %d", len(data), shape, elemSize, rows*rowBytes)
	}
	if hbm {
		return m.mem.WriteAt(at.Offset, data)
	}
	if loc.Region == mem.PSUM && (loc.Offset%4 != 0 || rowBytes%4 != 0) {
		return fmt.Errorf("PSUM rows must be whole 4-byte words (offset 0x%x, %d bytes per row)", loc.Offset, rowBytes)
	}
	for r := 0; r < rows; r++ {
		l := loc
		l.Partition += r
		if err := m.mem.Write(l, data[r*rowBytes:(r+1)*rowBytes]); err != nil {
			return err
		}
	}
	return nil
}

// ReadTensor returns the bytes of a C-order array of the given shape stored at at. Bytes are
// read whether or not they were written, also with CheckUninit (never-written HBM reads as zero).
func (m *Machine) ReadTensor(at isa.Location, shape []int, elemSize int) ([]byte, error) {
	if _, _, _, _, err := m.tensorRows(at, shape, elemSize); err != nil {
		return nil, err
	}
	n := elemSize
	for _, d := range shape {
		n *= d
	}
	out := make([]byte, n)
	if err := m.ReadTensorInto(at, shape, elemSize, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadTensorInto is ReadTensor into out, which must be exactly the array's size (so a caller
// can read a large array straight into the buffer it writes out, without a second copy).
func (m *Machine) ReadTensorInto(at isa.Location, shape []int, elemSize int, out []byte) error {
	loc, hbm, rows, rowBytes, err := m.tensorRows(at, shape, elemSize)
	if err != nil {
		return err
	}
	if len(out) != rows*rowBytes {
		return fmt.Errorf("buffer is %d bytes, shape %v x %d bytes needs %d", len(out), shape, elemSize, rows*rowBytes)
	}
	if hbm {
		return m.mem.ReadRaw(at.Offset, out)
	}
	for r := 0; r < rows; r++ {
		part := m.mem.Partition(loc.Region, loc.Partition+r)
		copy(out[r*rowBytes:], part[loc.Offset:int(loc.Offset)+rowBytes])
	}
	return nil
}
