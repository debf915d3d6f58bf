package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// TestCorpus runs every program of testdata/sim from the library on both StreamTranspose
// implementations (the fast tiled kernels and the dsel butterfly model, Config.Butterfly) and
// holds each run to the outcome its "# sim:" lines give (testdata/sim/README.md): how the run
// ends (the error category), the rule, whether the check before the run already refuses it, the
// race or the deadlock, the semaphores and a few bytes of memory after the run, from inputs the
// lines load first. Those lines are written by hand from what the program does.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "sim", "*.tpb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs under testdata/sim (%v)", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".tpb"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ap, err := asm.Parse(f, data, isa.CAYMAN)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := parseCorpusSpec(string(data), ap.Gen)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			p := &Program{File: f, BoundRegs: ap.BoundRegs, AddrRegs: ap.AddrRegs}
			for _, e := range ap.Engines {
				q := Queue{Engine: e}
				for i, it := range ap.Queues[e] {
					q.Insts = append(q.Insts, Instr{Inst: it.Inst, Index: i, Offset: -1, Line: it.Line})
				}
				p.Queues = append(p.Queues, q)
			}
			for _, impl := range []struct {
				name      string
				butterfly bool
			}{{"fast", false}, {"butterfly", true}} {
				t.Run(impl.name, func(t *testing.T) {
					m, err := New(Config{Gen: ap.Gen, Butterfly: impl.butterfly, Races: spec.races})
					if err != nil {
						t.Fatal(err)
					}
					spec.check(t, m, p)
				})
			}
		})
	}
}

// corpusOutcomes maps the outcome words of "# sim: outcome=WORD" onto the category a failed run
// unwraps to; "finished" is a run without error.
var corpusOutcomes = map[string]error{
	"invalid": fault.ErrInvalid, "bounds": fault.ErrBounds, "capacity": fault.ErrCapacity, "uninit": fault.ErrUninit, "deadlock": fault.ErrDeadlock,
	"unsupported": fault.ErrUnsupported, "limit": fault.ErrLimit, "race": fault.ErrRace,
}

// corpusSpec is what a program's "# sim:" lines say about its run.
type corpusSpec struct {
	outcome string
	rule    string // the rule the error names
	stage   string // "check": Machine.Check refuses the program; "run": it passes and the run fails
	waiting []string
	kind    string // the first race's kind
	rng     string // its first byte range, as the race report writes it
	bytes   int    // its overlapping bytes (-1: not said)
	nraces  int    // races of a finished run (-1: not said)
	races   RaceMode
	loads   []corpusBytes
	wants   []corpusBytes
	sems    map[int]uint32
}

type corpusBytes struct {
	text string
	at   isa.Location
	data []byte
}

// parseCorpusSpec reads the "# sim:" lines and the "# flags:" line of a program.
func parseCorpusSpec(src string, g isa.Generation) (*corpusSpec, error) {
	s := &corpusSpec{bytes: -1, nraces: -1, sems: map[int]uint32{}}
	for n, line := range strings.Split(src, "\n") {
		where := fmt.Sprintf("line %d", n+1)
		if flags, ok := strings.CutPrefix(line, "# flags:"); ok {
			for _, fl := range strings.Fields(flags) {
				v, ok := strings.CutPrefix(fl, "--races=")
				if !ok {
					return nil, fmt.Errorf("%s: flag %q: the corpus test knows --races=MODE only", where, fl)
				}
				m, err := ParseRaceMode(v)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", where, err)
				}
				s.races = m
			}
			continue
		}
		body, ok := strings.CutPrefix(line, "# sim:")
		if !ok {
			continue
		}
		body, _, _ = strings.Cut(body, " #")
		f := strings.Fields(body)
		if len(f) == 0 {
			return nil, fmt.Errorf("%s: empty # sim: line", where)
		}
		var err error
		switch f[0] {
		case "load", "want":
			var b corpusBytes
			if b, err = parseCorpusBytes(f[1:], g); err == nil {
				if f[0] == "load" {
					s.loads = append(s.loads, b)
				} else {
					s.wants = append(s.wants, b)
				}
			}
		case "sems":
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				i, e1 := strconv.Atoi(k)
				x, e2 := strconv.ParseUint(v, 0, 32)
				if e1 != nil || e2 != nil || i < 0 || i >= NumSemaphores {
					return nil, fmt.Errorf("%s: semaphore %q: want N=VALUE", where, kv)
				}
				s.sems[i] = uint32(x)
			}
		default:
			err = s.parseOutcome(f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
	}
	if s.outcome == "" {
		return nil, errors.New("no '# sim: outcome=...' line")
	}
	return s, nil
}

func (s *corpusSpec) parseOutcome(f []string) error {
	for _, kv := range f {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		var err error
		switch k {
		case "outcome":
			if _, ok := corpusOutcomes[v]; !ok && v != "finished" {
				return fmt.Errorf("outcome %q: not finished or a category word", v)
			}
			if s.outcome != "" {
				return errors.New("a second outcome")
			}
			s.outcome = v
		case "rule":
			s.rule = v
		case "stage":
			if v != "check" && v != "run" {
				return fmt.Errorf("stage %q: want check or run", v)
			}
			s.stage = v
		case "waiting":
			s.waiting = strings.Split(v, ",")
		case "kind":
			s.kind = v
		case "range":
			s.rng = v
		case "bytes":
			s.bytes, err = strconv.Atoi(v)
		case "races":
			s.nraces, err = strconv.Atoi(v)
		default:
			return fmt.Errorf("key %q unknown", k)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", kv, err)
		}
	}
	return nil
}

// parseCorpusBytes reads "ADDR TYPE V..." into bytes, little-endian: f32 (decimal values, as
// float32 bits), i32 / u32 (integers), x16 / x8 (hex bit patterns).
func parseCorpusBytes(f []string, g isa.Generation) (corpusBytes, error) {
	if len(f) < 3 {
		return corpusBytes{}, errors.New("want ADDR TYPE VALUE...")
	}
	at, err := isa.ParseAddress(f[0], g)
	if err != nil {
		return corpusBytes{}, err
	}
	b := corpusBytes{text: strings.Join(f, " "), at: at}
	for _, v := range f[2:] {
		var x uint64
		var size int
		switch f[1] {
		case "f32":
			var fl float64
			fl, err = strconv.ParseFloat(v, 32)
			x, size = uint64(math.Float32bits(float32(fl))), 4
		case "i32":
			var i int64
			i, err = strconv.ParseInt(v, 0, 32)
			x, size = uint64(uint32(int32(i))), 4
		case "u32":
			x, err = strconv.ParseUint(v, 0, 32)
			size = 4
		case "x16":
			x, err = strconv.ParseUint(v, 16, 16)
			size = 2
		case "x8":
			x, err = strconv.ParseUint(v, 16, 8)
			size = 1
		default:
			return b, fmt.Errorf("type %q: want f32, i32, u32, x16 or x8", f[1])
		}
		if err != nil {
			return b, fmt.Errorf("%s value %q: %v", f[1], v, err)
		}
		b.data = binary.LittleEndian.AppendUint64(b.data, x)[:len(b.data)+size]
	}
	return b, nil
}

// check loads the inputs, runs p on m and compares everything the spec says.
func (s *corpusSpec) check(t *testing.T, m *Machine, p *Program) {
	for _, l := range s.loads {
		if err := m.WriteTensor(l.at, []int{1, len(l.data)}, 1, l.data); err != nil {
			t.Fatalf("load %s: %v", l.text, err)
		}
	}
	checkErr := m.Check(p)
	res, err := m.Run(p)
	if s.outcome == "finished" {
		if err != nil {
			t.Fatalf("the run failed, want it to finish: %v", err)
		}
		if s.nraces >= 0 && len(res.Races) != s.nraces {
			t.Errorf("%d races reported, want %d: %v", len(res.Races), s.nraces, res.Races)
		}
	} else {
		want := corpusOutcomes[s.outcome]
		if !errors.Is(err, want) {
			t.Fatalf("err = %v, want the category %q (%v)", err, s.outcome, want)
		}
		for word, c := range corpusOutcomes {
			if c != want && errors.Is(err, c) {
				t.Errorf("the error is %q as well as %q: %v", word, s.outcome, err)
			}
		}
	}
	if s.rule != "" {
		if got := corpusRule(err); got != s.rule {
			t.Errorf("rule %q, want %q: %v", got, s.rule, err)
		}
	}
	switch s.stage {
	case "check":
		if checkErr == nil {
			t.Errorf("Machine.Check accepts the program; want it refused before the run")
		} else if got := corpusRule(checkErr); s.rule != "" && got != s.rule {
			t.Errorf("Machine.Check names rule %q, want %q", got, s.rule)
		}
	case "run":
		if checkErr != nil {
			t.Errorf("Machine.Check refuses the program (%v); want it refused at run time", checkErr)
		}
	}
	if s.waiting != nil {
		var de *DeadlockError
		if !errors.As(err, &de) {
			t.Fatalf("no *DeadlockError in %v", err)
		}
		var got []string
		for _, e := range de.Engines {
			if !e.Done {
				got = append(got, e.Engine)
			}
		}
		if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(s.waiting))) {
			t.Errorf("engines left waiting %v, want %v", got, s.waiting)
		}
	}
	if s.kind != "" || s.rng != "" || s.bytes >= 0 {
		var re *RaceError
		if !errors.As(err, &re) || len(re.Races) == 0 {
			t.Fatalf("no race reported: %v", err)
		}
		r := re.Races[0]
		if s.kind != "" && r.Kind() != s.kind {
			t.Errorf("race kind %s, want %s", r.Kind(), s.kind)
		}
		if s.rng != "" {
			if want, err := parseRaceRange(s.rng); err != nil {
				t.Errorf("range %q: %v", s.rng, err)
			} else if len(r.Ranges) == 0 || r.Ranges[0] != want {
				t.Errorf("race ranges %+v, want first %+v", r.Ranges, want)
			}
		}
		if s.bytes >= 0 && r.Bytes != uint64(s.bytes) {
			t.Errorf("race on %d bytes, want %d", r.Bytes, s.bytes)
		}
	}
	for i, want := range s.sems {
		if got := m.Semaphore(i); got != want {
			t.Errorf("sem[%d] = %d, want %d", i, got, want)
		}
	}
	for _, w := range s.wants {
		got, err := m.ReadTensor(w.at, []int{1, len(w.data)}, 1)
		if err != nil {
			t.Errorf("want %s: %v", w.text, err)
		} else if !slices.Equal(got, w.data) {
			t.Errorf("want %s: memory holds % x, want % x", w.text, got, w.data)
		}
	}
}

// corpusRule is the rule id err names: through fault.Rule, or the rule of the first instruction
// error of a program refused before the run (or of the failing instruction).
func corpusRule(err error) string {
	if id := fault.Rule(err); id != "" {
		return id
	}
	var pe *ProgramError
	if errors.As(err, &pe) && len(pe.Errs) > 0 {
		return pe.Errs[0].Rule
	}
	var ie *InstError
	if errors.As(err, &ie) {
		return ie.Rule
	}
	return ""
}

// parseRaceRange reads "sbuf:P0..P1:0xLO..0xHI" (P alone for one partition; HI inclusive) or
// "hbm:0xLO..0xHI".
func parseRaceRange(s string) (RaceRange, error) {
	parts := strings.Split(s, ":")
	span := func(t string, base int) (lo, hi uint64, err error) {
		a, b, ok := strings.Cut(t, "..")
		if !ok {
			b = a
		}
		if lo, err = strconv.ParseUint(a, base, 64); err == nil {
			hi, err = strconv.ParseUint(b, base, 64)
		}
		return lo, hi, err
	}
	hex := func(t string) (uint64, uint64, error) {
		a, b, _ := strings.Cut(t, "..")
		return span(strings.TrimPrefix(a, "0x")+".."+strings.TrimPrefix(b, "0x"), 16)
	}
	switch {
	case len(parts) == 2 && parts[0] == "hbm":
		lo, hi, err := hex(parts[1])
		return RaceRange{Region: mem.HBM, Lo: lo, Hi: hi + 1}, err
	case len(parts) == 3 && (parts[0] == "sbuf" || parts[0] == "psum"):
		p0, p1, err := span(parts[1], 10)
		if err != nil {
			return RaceRange{}, err
		}
		lo, hi, err := hex(parts[2])
		r := RaceRange{Region: mem.SBUF, FirstPartition: int(p0), LastPartition: int(p1), Lo: lo, Hi: hi + 1}
		if parts[0] == "psum" {
			r.Region = mem.PSUM
		}
		return r, err
	}
	return RaceRange{}, errors.New("want sbuf:P0..P1:0xLO..0xHI, psum:..., or hbm:0xLO..0xHI")
}
