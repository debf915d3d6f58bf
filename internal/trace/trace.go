// Package trace writes Chrome / Perfetto trace-event JSON ({"traceEvents": [...]}), the format
// ui.perfetto.dev and chrome://tracing load. tpbsim emits one "X" (complete) event per executed
// instruction or DMA descriptor, on a track (pid, tid) per engine, with "M" metadata events that
// name the processes and threads so each engine shows as a named track in a fixed order; "i"
// (instant) events mark points (a failure, a deadlock, a race), and "s"/"f" flow event pairs
// draw arrows between slices (a semaphore update to the wait it releases, a DMA instruction to
// its descriptors). A flow end binds to the slice enclosing its time on its track ("bp":"e").
//
// Times are kept in picoseconds and written as microseconds (the format's unit) with 6 decimals,
// so the output is deterministic and loses nothing.
package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Event is one complete ("X") event: a slice from TsPS lasting DurPS picoseconds.
type Event struct {
	Name  string
	Cat   string
	Pid   int
	Tid   int
	TsPS  int64
	DurPS int64
	Args  map[string]any
}

// Track names one (pid, tid) pair; Sort orders tracks inside a process.
type Track struct {
	Pid, Tid int
	Name     string
	Sort     int
}

// Counter is one sample of a counter track ("C" event): Perfetto draws each Name of a process as
// a counter track holding Value from TsPS on.
type Counter struct {
	Name  string
	Pid   int
	TsPS  int64
	Value int64
}

// Instant is one instant ("i") event: a marker at TsPS on a track (Scope "t"), across its
// process ("p") or across the whole trace ("g").
type Instant struct {
	Name  string
	Cat   string
	Pid   int
	Tid   int
	TsPS  int64
	Scope string
	Args  map[string]any
}

// Flow is an arrow from the slice enclosing FromTsPS on track (FromPid, FromTid) to the slice
// enclosing ToTsPS on (ToPid, ToTid): an "s" and an "f" event sharing an id.
type Flow struct {
	Name, Cat        string
	FromPid, FromTid int
	FromTsPS         int64
	ToPid, ToTid     int
	ToTsPS           int64
	Args             map[string]any
}

// Trace collects processes, tracks and events; Write renders them.
type Trace struct {
	procs    map[int]string
	tracks   []Track
	events   []Event
	counters []Counter
	instants []Instant
	flows    []Flow
}

// AddInstant appends an instant marker.
func (t *Trace) AddInstant(i Instant) { t.instants = append(t.instants, i) }

// AddFlow appends a flow arrow.
func (t *Trace) AddFlow(f Flow) { t.flows = append(t.flows, f) }

// Instants returns the markers added so far (not a copy).
func (t *Trace) Instants() []Instant { return t.instants }

// Flows returns the flows added so far (not a copy).
func (t *Trace) Flows() []Flow { return t.flows }

// AddCounter appends a counter sample.
func (t *Trace) AddCounter(c Counter) { t.counters = append(t.counters, c) }

// New returns an empty trace.
func New() *Trace { return &Trace{procs: map[int]string{}} }

// Process names process pid (a group of tracks, e.g. "NeuronCore engines").
func (t *Trace) Process(pid int, name string) { t.procs[pid] = name }

// AddTrack declares a named track.
func (t *Trace) AddTrack(tr Track) { t.tracks = append(t.tracks, tr) }

// Add appends an event.
func (t *Trace) Add(e Event) { t.events = append(t.events, e) }

// Len is the number of events (metadata excluded).
func (t *Trace) Len() int { return len(t.events) }

// Events returns the events added so far (not a copy).
func (t *Trace) Events() []Event { return t.events }

func us(ps int64) json.RawMessage {
	neg := ps < 0
	if neg {
		ps = -ps
	}
	s := strconv.FormatInt(ps/1_000_000, 10) + "." + fmt.Sprintf("%06d", ps%1_000_000)
	if neg {
		s = "-" + s
	}
	return json.RawMessage(s)
}

type jsonEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat,omitempty"`
	Ph   string          `json:"ph"`
	Ts   json.RawMessage `json:"ts"`
	Dur  json.RawMessage `json:"dur,omitempty"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	S    string          `json:"s,omitempty"`
	ID   int             `json:"id,omitempty"`
	Bp   string          `json:"bp,omitempty"`
	Args map[string]any  `json:"args,omitempty"`
}

// Write renders the trace as one JSON object, one event per line. Events are written sorted by
// (ts, pid, tid) with metadata first, so equal inputs give byte-identical files.
func (t *Trace) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var evs []jsonEvent
	pids := make([]int, 0, len(t.procs))
	for p := range t.procs {
		pids = append(pids, p)
	}
	sort.Ints(pids)
	zero := json.RawMessage("0")
	for _, p := range pids {
		evs = append(evs, jsonEvent{Name: "process_name", Ph: "M", Ts: zero, Pid: p, Args: map[string]any{"name": t.procs[p]}},
			jsonEvent{Name: "process_sort_index", Ph: "M", Ts: zero, Pid: p, Args: map[string]any{"sort_index": p}})
	}
	for _, tr := range t.tracks {
		evs = append(evs, jsonEvent{Name: "thread_name", Ph: "M", Ts: zero, Pid: tr.Pid, Tid: tr.Tid, Args: map[string]any{"name": tr.Name}},
			jsonEvent{Name: "thread_sort_index", Ph: "M", Ts: zero, Pid: tr.Pid, Tid: tr.Tid, Args: map[string]any{"sort_index": tr.Sort}})
	}
	sorted := make([]Event, len(t.events))
	copy(sorted, t.events)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.TsPS != b.TsPS {
			return a.TsPS < b.TsPS
		}
		if a.Pid != b.Pid {
			return a.Pid < b.Pid
		}
		return a.Tid < b.Tid
	})
	for _, e := range sorted {
		evs = append(evs, jsonEvent{Name: e.Name, Cat: e.Cat, Ph: "X", Ts: us(e.TsPS), Dur: us(e.DurPS), Pid: e.Pid, Tid: e.Tid, Args: e.Args})
	}
	ins := make([]Instant, len(t.instants))
	copy(ins, t.instants)
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].TsPS < ins[j].TsPS })
	for _, e := range ins {
		sc := e.Scope
		if sc == "" {
			sc = "t"
		}
		evs = append(evs, jsonEvent{Name: e.Name, Cat: e.Cat, Ph: "i", Ts: us(e.TsPS), Pid: e.Pid, Tid: e.Tid, S: sc, Args: e.Args})
	}
	// Flows keep their order of addition (ids 1, 2, ...), so equal inputs give equal files.
	for i, f := range t.flows {
		cat := f.Cat
		if cat == "" {
			cat = "flow"
		}
		evs = append(evs, jsonEvent{Name: f.Name, Cat: cat, Ph: "s", Ts: us(f.FromTsPS), Pid: f.FromPid, Tid: f.FromTid, ID: i + 1, Args: f.Args},
			jsonEvent{Name: f.Name, Cat: cat, Ph: "f", Bp: "e", Ts: us(f.ToTsPS), Pid: f.ToPid, Tid: f.ToTid, ID: i + 1})
	}
	cs := make([]Counter, len(t.counters))
	copy(cs, t.counters)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].TsPS < cs[j].TsPS })
	for _, c := range cs {
		evs = append(evs, jsonEvent{Name: c.Name, Ph: "C", Ts: us(c.TsPS), Pid: c.Pid, Args: map[string]any{"value": c.Value}})
	}
	bw.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("trace: event %q: %w", e.Name, err)
		}
		bw.Write(b)
		if i < len(evs)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}
