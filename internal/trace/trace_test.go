package trace

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWriteWellFormed(t *testing.T) {
	tr := New()
	tr.Process(1, "engines")
	tr.AddTrack(Track{Pid: 1, Tid: 3, Name: "DVE", Sort: 0})
	tr.Add(Event{Name: "STREAM_TRANSPOSE", Cat: "DVE", Pid: 1, Tid: 3, TsPS: 1_500_000, DurPS: 2_000_001, Args: map[string]any{"bytes_read": 4096}})
	tr.Add(Event{Name: "COPY", Pid: 1, Tid: 3, TsPS: 0, DurPS: 7})
	tr.AddCounter(Counter{Name: "sem[3]", Pid: 1, TsPS: 9, Value: 2})
	var b bytes.Buffer
	if err := tr.Write(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Ph   string          `json:"ph"`
			Ts   float64         `json:"ts"`
			Dur  float64         `json:"dur"`
			Pid  int             `json:"pid"`
			Tid  int             `json:"tid"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	var xs []string
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			xs = append(xs, e.Name)
			if e.Name == "STREAM_TRANSPOSE" && (e.Ts != 1.5 || e.Dur != 2.000001) {
				t.Errorf("times: ts=%v dur=%v", e.Ts, e.Dur)
			}
		}
	}
	nc := 0
	for _, e := range doc.TraceEvents {
		if e.Ph == "C" {
			nc++
		}
	}
	if nc != 1 {
		t.Errorf("%d counter events", nc)
	}
	if len(xs) != 2 || xs[0] != "COPY" {
		t.Errorf("X events %v, want COPY first (sorted by ts)", xs)
	}
	if us(-1_000_001) == nil || string(us(-1_000_001)) != "-1.000001" {
		t.Errorf("negative: %s", us(-1_000_001))
	}
}
