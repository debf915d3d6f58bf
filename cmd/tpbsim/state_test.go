package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpbsim/tpbsim/internal/npy"
)

type stateDoc struct {
	Outcome    string   `json:"outcome"`
	Error      string   `json:"error"`
	Semaphores []uint32 `json:"semaphores"`
	Engines    []struct {
		Engine, Status string
		PC, Index      int
		Wait           *struct {
			Semaphore      int
			Mode           string
			Value, Current uint32
		}
	} `json:"engines"`
}

func readState(t *testing.T, path string) stateDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no state file: %v", err)
	}
	var s stateDoc
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("state is not JSON: %v\n%s", err, data)
	}
	if len(s.Semaphores) != 256 || len(s.Engines) != 4 {
		t.Fatalf("state has %d semaphores and %d engines, want 256 and 4", len(s.Semaphores), len(s.Engines))
	}
	return s
}

// TestRunStateAndAtomicFailure (issue 12 item 5): --state is written at the end, finished or
// stopped; with --dump-on-failure the dumps are written after a failure too, and show the
// failing instruction changed nothing: the copy before it landed, its own destination did not.
func TestRunStateAndAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "p.tpb")
	os.WriteFile(src, []byte(`.gen CAYMAN
.engine DVE
COPY update_mode=SEM_INC_COMPLETE update_idx=5 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
COPY src_mem_pattern=sbuf:0:0x1000[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x200[32@1]
`), 0o644)
	in := make([]byte, 32*32*4)
	for i := 0; i < 32*32; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i)+0.5))
	}
	a := filepath.Join(dir, "a.npy")
	writeNPY(t, a, "f4", []int{32, 32}, in)
	x, y, st := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy"), filepath.Join(dir, "state.json")
	args := []string{"run", src, "--check-uninit", "--load", "sbuf:0:0x0=" + a, "--state", st,
		"--dump", "sbuf:0:0x100=32x32:fp32:" + x, "--dump", "sbuf:0:0x200=32x32:fp32:" + y}

	// without --dump-on-failure: the state, no dumps
	if code, _, stderr := simCLI(args...); code != 1 {
		t.Fatalf("exit %d, want 1 (the second COPY reads never-written bytes)\n%s", code, stderr)
	}
	for _, f := range []string{x, y} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s written without --dump-on-failure", f)
		}
	}
	s := readState(t, st)
	dve := s.Engines[0]
	if s.Outcome != "failed" || s.Error == "" || dve.Engine != "DVE" || dve.Status != "failed" || dve.Index != 1 || dve.PC != 64 {
		t.Errorf("state %+v, want DVE failed at instruction 1 (pc 64)", s)
	}
	if s.Semaphores[5] != 1 {
		t.Errorf("sem[5] = %d, want 1 (the first COPY's update)", s.Semaphores[5])
	}
	for _, e := range s.Engines[1:] {
		if e.Status != "finished" {
			t.Errorf("%s (empty queue) status %q", e.Engine, e.Status)
		}
	}

	// with --dump-on-failure: whole dumps of the memory as the stop left it
	os.Remove(st)
	if code, _, stderr := simCLI(append(args, "--dump-on-failure")...); code != 1 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, c := range []struct {
		file string
		want []byte
	}{{x, in}, {y, make([]byte, len(in))}} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			fh, err := os.Open(c.file)
			if err != nil {
				t.Fatalf("dump not written: %v", err)
			}
			arr, err := npy.Read(fh)
			fh.Close()
			if err != nil || !bytes.Equal(arr.Data, c.want) {
				t.Errorf("%s: %v; the bytes differ from what the run left (the failing COPY must change nothing)", c.file, err)
			}
		})
	}
	readState(t, st)
}

// A deadlocked run's state names each engine's wait; a finished run's says finished.
func TestRunStateDeadlockAndSuccess(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "s.json")
	if code, _, stderr := simCLI("run", filepath.Join("..", "..", "testdata", "sim", "deadlock.tpb"), "--quiet", "--state", st); code != 1 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	s := readState(t, st)
	if s.Outcome != "deadlock" {
		t.Errorf("outcome %q", s.Outcome)
	}
	for _, e := range s.Engines {
		if e.Engine == "DVE" || e.Engine == "ACT" {
			if e.Status != "waiting" || e.Wait == nil || e.Wait.Mode != "WAIT_FOR_SEM_GE_IMM" || e.Wait.Value != 1 || e.Wait.Current != 0 {
				t.Errorf("%s: %+v, want waiting on a GE 1 wait", e.Engine, e)
			}
		}
	}
	if code, _, stderr := simCLI("run", filepath.Join("..", "..", "testdata", "sim", "pingpong.tpb"), "--quiet", "--state", st); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	s = readState(t, st)
	if s.Outcome != "finished" || s.Engines[0].Status != "finished" || s.Semaphores[1] != 1 || s.Semaphores[2] != 1 {
		t.Errorf("state of pingpong: %+v", s)
	}
	// a racy run under the default --races=error: exit 1, outcome races
	if code, _, _ := simCLI("run", filepath.Join("..", "..", "testdata", "sim", "race_write_write.tpb"), "--quiet", "--state", st); code != 1 {
		t.Fatalf("racy run: exit %d", code)
	}
	if s = readState(t, st); s.Outcome != "races" {
		t.Errorf("racy run outcome %q", s.Outcome)
	}
}
