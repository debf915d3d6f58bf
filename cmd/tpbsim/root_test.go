package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// Missing and unknown (sub)commands are usage errors, exit 2, with a message.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		msg    string // in stderr
		stdout string // in stdout ("" = stdout empty)
	}{
		{"bare tpbsim prints help", nil, 2, "missing command", "Available Commands:"},
		{"unknown command", []string{"bogus"}, 2, `unknown command "bogus"`, ""},
		{"bare dge", []string{"dge"}, 2, "dge: missing subcommand: one of plan, run", ""},
		{"unknown dge subcommand", []string{"dge", "bogus"}, 2, `dge: unknown subcommand "bogus"`, ""},
		{"dge typo suggests", []string{"dge", "plna"}, 2, "did you mean plan?", ""},
		{"bare dtable", []string{"dtable"}, 2, "dtable: missing subcommand: one of census, diff, dump, encode, info, report", ""},
		{"unknown dtable subcommand", []string{"dtable", "bogus"}, 2, `dtable: unknown subcommand "bogus"`, ""},
		{"unknown help topic", []string{"help", "bogus"}, 2, `unknown help topic "bogus"`, ""},
		{"unknown flag on a group", []string{"dge", "--bogus"}, 2, "unknown flag", ""},
		{"help of a group", []string{"dge", "--help"}, 0, "", "plan"},
		{"help command", []string{"help", "dtable"}, 0, "", "encode"},
		{"dtable info of a missing path", []string{"dtable", "info", "/nonexistent"}, 2, "/nonexistent: no such file or directory", ""},
		{"dtable census of a missing path", []string{"dtable", "census", "/nonexistent/x_datapath_table.bin"}, 2, "no such file or directory", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := simCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if tc.msg != "" && !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr lacks %q:\n%s", tc.msg, stderr)
			}
			if tc.stdout == "" && stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
			if tc.stdout != "" && !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout)
			}
			if strings.Contains(stderr, "cannot tell which table") {
				t.Errorf("a missing file is reported as an unknown table:\n%s", stderr)
			}
		})
	}
}

// TestRepeatedFlagRefused: a single-valued flag given twice with different values is a usage
// error (pflag kept the last one silently: `asm -o a.bin -o b.bin` wrote only b.bin); the same
// value twice, and the repeatable flags, stay fine.
func TestRepeatedFlagRefused(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	code, _, stderr := simCLI("asm", "../../testdata/asm/example.s", "-o", a, "-o", b)
	if code != 2 || !strings.Contains(stderr, "--out is given twice") {
		t.Fatalf("-o twice: exit %d: %s", code, stderr)
	}
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("-o twice wrote %s", p)
		}
	}
	if code, _, stderr := simCLI("check", "../../testdata/asm/example.s", "--gen", "MAVERICK", "--gen", "CAYMAN"); code != 2 || !strings.Contains(stderr, "--gen is given twice") {
		t.Errorf("--gen twice: exit %d: %s", code, stderr)
	}
	if code, _, stderr := simCLI("check", "../../testdata/asm/example.s", "--gen", "CAYMAN", "--gen", "CAYMAN", "--json", "--json"); code != 0 {
		t.Errorf("the same value twice: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := simCLI("dtable", "dump", fixtures+"/dve_bin_gen2", "--block", "41", "--block", "42"); code != 0 || !strings.Contains(stdout, "block 42") {
		t.Errorf("repeatable --block: exit %d: %s", code, stderr)
	}
}

// exitStatus is the one mapping of errors to exit statuses: a status the command chose wins,
// else the fault category decides (through any wrapping), else usage or I/O.
func TestExitStatus(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitOK},
		{"no category", errors.New("open x: no such file"), exitUsageIO},
		{"ioErr over a rule category", ioErr(fmt.Errorf("--timing: %w", fault.ErrInvalid)), exitUsageIO},
		{"ruleErr of no category", ruleErr(errors.New("mismatch")), exitRule},
		{"ruleErr of truncated", ruleErr(fault.ErrTruncated), exitRule},
		{"wrapped category", fmt.Errorf("plan: %w", fault.ErrInvalid), exitRule},
		{"script status", &cliError{7, errors.New("")}, 7},
		{"wrapped twice", fault.Wrap("DMA[3]", fmt.Errorf("descriptor[7]: %w", fault.ErrBounds)), exitRule},
	}
	for _, c := range fault.Categories {
		want := exitRule
		if c == fault.ErrTruncated {
			want = exitUsageIO
		}
		cases = append(cases, struct {
			name string
			err  error
			want int
		}{"category " + c.Error(), fmt.Errorf("x: %w", c), want})
		if _, ok := categoryStatus[c]; !ok {
			t.Errorf("category %v has no exit status", c)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := exitStatus(c.err); got != c.want {
				t.Errorf("exitStatus(%v) = %d, want %d", c.err, got, c.want)
			}
		})
	}
}
