package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// choices draws a kernel's choices from fuzz bytes, one byte a choice, 0 past the end: a short
// input is a small kernel, and a mutation of one byte changes one choice, so coverage guidance
// can build on what it found. Only the first maxChoiceBytes are read: Go's minimiser tries
// O(n^2) cuts of an input, which stalled a JSON-mutating FuzzLower at 0 execs/s.
type choices struct {
	b []byte
	i int
}

const maxChoiceBytes = 96

func (c *choices) n(k int) int {
	if c.i >= len(c.b) || c.i >= maxChoiceBytes {
		c.i++
		return 0
	}
	c.i++
	return int(c.b[c.i-1]) % k
}

func pick[T any](c *choices, xs ...T) T { return xs[c.n(len(xs))] }

// The kernel builder's vocabulary: the first entry of each list is what a zero byte picks.
var (
	fuzzGens     = []isa.Generation{isa.CAYMAN, isa.SUNDA, isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK}
	fuzzVersions = append([]string{""}, NKIVersions...)
	fuzzDTypes   = []string{"float32", "bfloat16", "float16", "int32", "uint32", "uint8", "int8", "float8_e4m3", "float8_e5m2",
		"bool", "uint16", "int16", "float8_e8m0fnu", "tfloat32", "float64"}
	fuzzExtents = []int{32, 2, 64, 1, 16, 128, 3, 4, 8, 31, 33, 129}
	fuzzOps     = []string{OpDMACopy, OpTensorCopy, OpNCTranspose, OpDMATranspose, OpTensorReduce, OpStreamShuffle, OpReciprocal,
		OpMemset, OpLoadTranspose2D}
	fuzzEngines = []string{"", "vector", "gpsimd", "scalar", "tensor", "sync", "act", "unknown", "bogus"}
)

func strp(s string) *string { return &s }

// fuzzKernel builds a kernel of a few tensors (shapes from two extents the kernel shares, so
// operands often agree) and up to six calls of any op on views of them (whole, halves,
// transposed, single rows, shifted, or raw patterns), with the options each op takes drawn from
// what NKI allows and what it does not. The same bytes always give the same kernel.
func fuzzKernel(data []byte) (*Kernel, Options) {
	c := &choices{b: data}
	opt := Options{Gen: pick(c, fuzzGens...), NKIVersion: pick(c, fuzzVersions...)}
	k := &Kernel{Format: FormatName, Version: FormatVersion, Name: "fuzz", Source: "f.py"}
	P, F := pick(c, fuzzExtents...), pick(c, fuzzExtents...)
	// tensor i's buffer: a zero byte gives an HBM input, SBUF tiles, then an HBM output
	bufs := [][]string{{BufHBM, BufSBUF, BufPSUM, BufSharedHBM}, {BufSBUF, BufPSUM, BufHBM}, {BufSBUF, BufPSUM, BufSharedHBM},
		{BufPSUM, BufSBUF, BufHBM}, {BufSharedHBM, BufSBUF, BufPrivateHBM, BufHBM}}
	nT := 2 + c.n(4)
	for i := 0; i < nT; i++ {
		t := Tensor{Name: "t" + itoa(i), DType: pick(c, fuzzDTypes...), Buffer: pick(c, bufs[min(i, 4)]...), Loc: "f.py:" + itoa(i+1)}
		switch c.n(5) {
		case 0:
			t.Shape = []int{P, F}
		case 1:
			t.Shape = []int{F, P}
		case 2:
			t.Shape = []int{P}
		case 3:
			t.Shape = []int{P, F, 2}
		case 4:
			t.Shape = []int{pick(c, fuzzExtents...), pick(c, fuzzExtents...)}
		}
		if t.Buffer == BufHBM && c.n(4) != 3 {
			t.Kind = "input"
		}
		k.Tensors = append(k.Tensors, t)
	}
	for i := range k.Tensors {
		if !k.Tensors[i].onChip() && k.Tensors[i].Kind != "input" {
			k.Outputs = append(k.Outputs, i)
		}
	}
	nC := 1 + c.n(6)
	for i := 0; i < nC; i++ {
		k.Calls = append(k.Calls, fuzzCall(c, k, i))
	}
	return k, opt
}

// fuzzView draws a view of one of k's tensors.
func fuzzView(c *choices, k *Kernel) *View {
	ti := c.n(len(k.Tensors))
	sh := k.Tensors[ti].Shape
	rows, cols := int64(sh[0]), int64(1)
	for _, d := range sh[1:] {
		cols *= int64(d)
	}
	v := &View{Tensor: ti, Pattern: [][2]int64{{cols, rows}, {1, cols}}}
	switch c.n(7) {
	case 1: // the first half of the rows
		v.Pattern[0][1] = max(1, rows/2)
	case 2: // transposed: columns outermost
		v.Pattern = [][2]int64{{1, cols}, {cols, rows}}
	case 3: // one row
		v.Pattern = [][2]int64{{1, cols}}
		v.Offset = int64(c.n(int(rows))) * cols
	case 4: // shifted by an element
		v.Offset = 1
	case 5: // a raw two-level pattern
		v.Pattern = [][2]int64{{int64(c.n(int(cols)+3)) * cols, int64(1 + c.n(int(rows)))}, {int64(c.n(7) - 3), int64(1 + c.n(int(cols)+2))}}
		v.Offset = int64(c.n(8))
	case 6: // the whole tensor as one axis
		v.Pattern = [][2]int64{{1, rows * cols}}
	}
	return v
}

func fuzzCall(c *choices, k *Kernel, i int) Call {
	op := pick(c, fuzzOps...)
	cl := Call{Op: op, Call: "nisa." + op, Loc: "f.py:" + itoa(10+i)}
	cl.Dst = fuzzView(c, k)
	switch op {
	case OpNCTranspose, OpTensorReduce, OpReciprocal:
		cl.Data = fuzzView(c, k)
	case OpMemset:
		v := pick(c, Number(0), 1, -1, 0.5, 300, 1e10, Number(-0.0))
		cl.Value = &v
	default:
		cl.Src = fuzzView(c, k)
	}
	switch op {
	case OpDMACopy:
		switch c.n(6) {
		case 1:
			cl.DstRMWOp = strp(pick(c, "add", "multiply"))
		case 2, 3:
			// an indirect gather (or scatter) through an index view of another tensor
			side := pick(c, cl.Src, cl.Dst)
			side.Indirect = &Indirect{Index: *fuzzView(c, k), Dim: c.n(len(side.Pattern))}
			cl.OOBMode = pick(c, "", "error", "skip", "wrap")
		case 4:
			cl.OOBMode = "skip"
		case 5:
			cl.DGEMode = strp(pick(c, "hwdge", "swdge", "unknown"))
		}
		if e := pick(c, fuzzEngines...); e != "" {
			cl.Engine = &e
		}
	case OpDMATranspose:
		switch c.n(4) {
		case 1:
			cl.Axes = pick(c, []int{1, 0}, []int{0, 1}, []int{2, 1, 0}, []int{3, 1, 2, 0})
		case 2:
			cl.DGEMode = strp(pick(c, "hwdge", "swdge", "unknown"))
		case 3:
			cl.Src.Indirect = &Indirect{Index: *fuzzView(c, k), Dim: 0}
			cl.OOBMode = pick(c, "", "skip")
		}
	case OpNCTranspose, OpTensorCopy:
		if e := pick(c, fuzzEngines...); e != "" {
			cl.Engine = &e
		}
	case OpStreamShuffle:
		mask := make([]int, pick(c, 32, 31, 33))
		mode := c.n(4)
		for j := range mask {
			switch mode {
			case 0:
				mask[j] = j
			case 1:
				mask[j] = 0
			case 2:
				mask[j] = 31 - j
			case 3:
				mask[j] = pick(c, 255, 0, 1, 31, 32, 256)
			}
		}
		cl.ShuffleMask = mask
	case OpTensorReduce:
		cl.ReduceOp = pick(c, "add", "maximum", "minimum", "multiply", "subtract", "bitwise_and", "logical_or", "power")
		cl.Axis = pick(c, []int{1}, []int{1, 2}, []int{2}, []int{0}, []int{}, []int{-1})
		cl.Negate = c.n(4) == 1
		cl.Keepdims = c.n(4) == 1
	}
	return cl
}

// fuzzInputs is deterministic data for every input of lw: byte i of an input is i*37+tensor.
func fuzzInputs(lw *Lowered) map[int][]byte {
	in := map[int][]byte{}
	for i := range lw.Kernel.Tensors {
		if lw.Kernel.Tensors[i].Kind == "input" {
			b := make([]byte, lw.Placements[i].RowBytes)
			for j := range b {
				b[j] = byte(j*37 + i)
			}
			in[i] = b
		}
	}
	return in
}

// fuzzMachines keeps one machine per generation per fuzz worker: a new one costs its SBUF and
// PSUM (~25 ms); RunOn resets it (cost proportional to what the last run wrote).
var fuzzMachines = struct {
	sync.Mutex
	m map[isa.Generation]*sim.Machine
}{m: map[isa.Generation]*sim.Machine{}}

func fuzzMachine(t testing.TB, g isa.Generation) (*sim.Machine, func()) {
	fuzzMachines.Lock()
	m := fuzzMachines.m[g]
	delete(fuzzMachines.m, g)
	fuzzMachines.Unlock()
	if m == nil {
		var err error
		if m, err = sim.New(sim.Config{Gen: g, MaxElements: 1 << 20}); err != nil {
			t.Fatal(err)
		}
	}
	return m, func() {
		fuzzMachines.Lock()
		fuzzMachines.m[g] = m
		fuzzMachines.Unlock()
	}
}

// lowerAndRun is FuzzLower's property: the kernel lowers or is refused with an *Error of one of
// the kernel categories naming a rule; a lowered kernel passes the machine's checks (a
// *LoweringError is a defect), and runs to its end: no race, no deadlock, no refused
// instruction (an index past its table, with oob_mode error, is the only run-time failure a
// well-formed kernel may have).
//
// The machine's check is made once, by the run (Options.DeferCheck), which refuses with what
// Lower would have; the outputs stay on the machine (Exec).
func lowerAndRun(t *testing.T, k *Kernel, opt Options) {
	opt.DeferCheck = true
	lw, err := Lower(k, opt)
	if err != nil {
		checkLowerErr(t, err)
		return
	}
	m, put := fuzzMachine(t, lw.Gen)
	defer put()
	_, err = lw.Exec(m, fuzzInputs(lw))
	var le *LoweringError
	var ke *Error
	switch {
	case err == nil:
		return
	case errors.As(err, &le):
		t.Fatalf("a lowered word is refused by the machine's checks: %v\n%s", err, lw.Text())
	case errors.As(err, &ke) && !ke.Malformed: // the check Lower deferred refused it with a call's *Error
		checkLowerErr(t, err)
		return
	}
	indirect := false
	for _, cl := range k.Calls {
		for _, v := range []*View{cl.Dst, cl.Src} {
			indirect = indirect || v != nil && v.Indirect != nil
		}
	}
	if !indirect || !errors.Is(err, fault.ErrBounds) {
		t.Fatalf("a lowered kernel fails to run: %v\n%s", err, lw.Text())
	}
}

// checkLowerErr: err, a refusal of Lower (or of the check it deferred to the run), is an *Error
// of one of the kernel categories naming a rule.
func checkLowerErr(t *testing.T, err error) {
	t.Helper()
	var ke *Error
	if !errors.As(err, &ke) {
		t.Fatalf("Lower error of type %T: %v", err, err)
	}
	if c := fault.Category(err); c != fault.ErrInvalid && c != fault.ErrCapacity && c != fault.ErrUnsupported {
		t.Fatalf("Lower error of category %v: %v", c, err)
	}
	if ke.Rule == "" {
		t.Fatalf("Lower error names no rule: %v", err)
	}
}

// fuzzLowerSeeds are FuzzLower's seeds: the empty input (the smallest kernel), and for each op
// the first input of a fixed pseudo-random sequence whose kernel uses the op and lowers, so the
// fuzzer starts from a lowered call of every op. The same inputs on every run.
var fuzzLowerSeeds = sync.OnceValue(func() [][]byte {
	out := [][]byte{{}}
	have := map[string]bool{}
	st := uint64(1)
	for try := 0; try < 20000 && len(have) < len(fuzzOps); try++ {
		in := make([]byte, 48)
		for j := range in {
			st = st*6364136223846793005 + 1442695040888963407
			if st>>60 < 5 { // about a third of the bytes non-zero
				in[j] = byte(st >> 40)
			}
		}
		k, opt := fuzzKernel(in)
		var fresh []string
		for _, c := range k.Calls {
			if !have[c.Op] {
				fresh = append(fresh, c.Op)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		if _, err := Lower(k, opt); err != nil {
			continue
		}
		for _, op := range fresh {
			have[op] = true
		}
		out = append(out, in)
	}
	return out
})

// FuzzLower: any kernel the builder makes from the fuzz bytes is lowered or refused with a
// categorised *Error naming a rule; a lowered one passes the machine's checks and runs on the
// machine to its end (lowerAndRun). The inputs are the builder's choices (fuzzKernel), not
// JSON: TestKernelJSONRoundTrip holds the JSON form of the seeds, FuzzParse the parser.
func FuzzLower(f *testing.F) {
	for _, s := range fuzzLowerSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, opt := fuzzKernel(data)
		lowerAndRun(t, k, opt)
	})
}

// parseSeeds are small kernel forms with every key of the form between them.
var parseSeeds = []string{
	`{"format":"tpbsim.kernel","version":1,"name":"k","tensors":[{"name":"a","shape":[2,4],"dtype":"float32","buffer":"hbm","kind":"input","arg":0},` +
		`{"name":"t","shape":[2,4],"dtype":"bfloat16","buffer":"sbuf","loc":"k.py:3"}],"calls":[{"op":"dma_copy","call":"nl.load","loc":"k.py:4",` +
		`"dst":{"tensor":1,"offset":0,"pattern":[[4,2],[1,4]]},"src":{"tensor":0,"offset":0,"pattern":[[4,2],[1,4]]}}],"outputs":[]}`,
	`{"format":"tpbsim.kernel","version":1,"name":"m","gen":"CAYMAN","nki_version":"2.32","api":"nki","source":"m.py","tensors":[{"name":"o",` +
		`"shape":[4],"dtype":"int32","buffer":"shared_hbm","writeback":true}],"calls":[{"op":"memset","dst":{"tensor":0,"offset":1,"pattern":[[1,3]]},` +
		`"value":"nan"}],"outputs":[0]}`,
	`{"format":"tpbsim.kernel","version":1,"name":"g","tensors":[{"name":"x","shape":[8,2],"dtype":"float16","buffer":"hbm","file":"x.npy",` +
		`"encoding":"raw","kind":"input"},{"name":"i","shape":[2],"dtype":"uint32","buffer":"sbuf"}],"calls":[{"op":"dma_copy","oob_mode":"skip",` +
		`"dst_rmw_op":"add","dge_mode":"swdge","engine":"gpsimd","dst":{"tensor":0,"offset":0,"pattern":[[2,2],[1,2]]},"src":{"tensor":0,"offset":8,` +
		`"pattern":[[2,2],[1,2]],"indirect":{"index":{"tensor":1,"offset":0,"pattern":[[1,2]]},"dim":0}}}],"outputs":[]}`,
	`{"format":"tpbsim.kernel","version":1,"name":"r","tensors":[{"name":"t","shape":[32,4],"dtype":"float32","buffer":"psum"}],"calls":[` +
		`{"op":"tensor_reduce","reduce_op":"add","axis":[1],"negate":true,"keepdims":true,"dst":{"tensor":0,"offset":0,"pattern":[[4,32],[1,1]]},` +
		`"data":{"tensor":0,"offset":0,"pattern":[[4,32],[1,4]]}},{"op":"nc_stream_shuffle","shuffle_mask":[0,255],"axes":[1,0],"dst":{"tensor":0,` +
		`"offset":0,"pattern":[[1,4]]},"src":{"tensor":0,"offset":0,"pattern":[[1,4]]}}],"outputs":[]}`,
}

// maxParseInput bounds FuzzParse's inputs: Go minimises a new-coverage input by trying O(n^2)
// cuts of it, which for 1 KiB kernels stalled the target for the minimiser's whole minute.
const maxParseInput = 512

// FuzzParse: any bytes parse into a kernel or are refused with a malformed *Error naming a
// kernel.form rule (a JSON error its line and byte); a kernel that parses reads back from its
// own JSON to the same JSON. Seeds: parseSeeds, every key of the form in a few small kernels
// (TestKernelJSONRoundTrip holds the larger kernels under testdata/kernel).
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxParseInput {
			return
		}
		k, err := Parse(data)
		if err != nil {
			var ke *Error
			if !errors.As(err, &ke) || !ke.Malformed || !strings.HasPrefix(ke.Rule, "kernel.form.") {
				t.Fatalf("Parse error is not a malformed *Error with a kernel.form rule: %#v", err)
			}
			if ke.Rule == "kernel.form.json" && !strings.Contains(ke.Msg, "line ") && !strings.Contains(ke.Msg, "trailing") {
				t.Fatalf("a JSON error names no line: %v", err)
			}
			return
		}
		checkRoundTrip(t, k)
	})
}

// checkRoundTrip: a kernel's JSON parses back to a kernel of the same JSON.
func checkRoundTrip(t testing.TB, k *Kernel) {
	t.Helper()
	js, err := json.Marshal(k)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	k2, err := Parse(js)
	if err != nil {
		t.Fatalf("the kernel's own JSON does not parse: %v\n%s", err, js)
	}
	js2, err := json.Marshal(k2)
	if err != nil || !bytes.Equal(js, js2) {
		t.Fatalf("the JSON reads back differently (%v):\n%s\n%s", err, js, js2)
	}
}

// seedKernelJSON is the JSON of the kernels under testdata/kernel, of parseSeeds, and of
// FuzzLower's seeds that pass the form's checks.
func seedKernelJSON(t testing.TB) [][]byte {
	files, _ := filepath.Glob("../testdata/kernel/*.json")
	if len(files) == 0 {
		t.Fatal("no kernels under testdata/kernel")
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	for _, s := range parseSeeds {
		out = append(out, []byte(s))
	}
	for _, s := range fuzzLowerSeeds() {
		k, _ := fuzzKernel(s)
		if k.checkStructure() != nil {
			continue
		}
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// The JSON round trip of the seed kernels: each parses, and its JSON reads back to the same
// JSON; the kernels FuzzLower's seeds build lower the same from their JSON as from Go.
func TestKernelJSONRoundTrip(t *testing.T) {
	for i, js := range seedKernelJSON(t) {
		t.Run(itoa(i), func(t *testing.T) {
			k, err := Parse(js)
			if err != nil {
				t.Fatalf("%v\n%s", err, js)
			}
			checkRoundTrip(t, k)
		})
	}
	for i, s := range fuzzLowerSeeds() {
		t.Run("seed"+itoa(i), func(t *testing.T) {
			k, opt := fuzzKernel(s)
			js, err := json.Marshal(k)
			if err != nil {
				t.Fatal(err)
			}
			k2, err := Parse(js)
			if err != nil {
				if k.checkStructure() == nil {
					t.Fatalf("a kernel the form's checks accept does not parse from its JSON: %v", err)
				}
				return
			}
			lw1, err1 := Lower(k, opt)
			lw2, err2 := Lower(k2, opt)
			if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
				t.Fatalf("lowered from Go: %v; from JSON: %v", err1, err2)
			}
			if err1 == nil && lw1.Text() != lw2.Text() {
				t.Fatalf("the lowered programs differ:\n%s\n%s", lw1.Text(), lw2.Text())
			}
		})
	}
}
