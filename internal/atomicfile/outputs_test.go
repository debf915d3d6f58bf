package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteOutputs writes the files, then the one "-" output to stdout; a failing file names its
// flag and leaves the other files unwritten; two "-" outputs are refused before anything is
// written.
func TestWriteOutputs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	for _, tc := range []struct {
		name    string
		outs    []Output
		stdout  string
		written bool
		err     string
	}{
		{"files and stdout", []Output{{"--trace", a, []byte("A")}, {"--summary", StdoutPath, []byte("S")}}, "S", true, ""},
		{"a file that cannot be written", []Output{{"--trace", a, []byte("A")}, {"--state", "/proc/no/such.json", []byte("B")}}, "", false, "--state /proc/no/such.json: "},
		{"two to stdout", []Output{{"--trace", a, []byte("A")}, {"--summary", StdoutPath, nil}, {"--state", StdoutPath, nil}}, "", false, "only one output may go to standard output"},
		{"the null device", []Output{{"-o", os.DevNull, []byte("X")}}, "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(a)
			var out bytes.Buffer
			err := WriteOutputs(tc.outs, &out)
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
			if out.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", out.String(), tc.stdout)
			}
			if _, err := os.Stat(a); (err == nil) != tc.written {
				t.Errorf("%s written: %v, want %v", a, err == nil, tc.written)
			}
		})
	}
}
