package main

import (
	"strings"
	"testing"
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
