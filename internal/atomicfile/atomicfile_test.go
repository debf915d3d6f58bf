package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// names lists a directory's entries (hidden temporary files included).
func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	for _, n := range names(t, dir) {
		if strings.HasSuffix(n, ".tmp") {
			t.Errorf("temporary file %s left in %s", n, dir)
		}
	}
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

func TestWriteFileNewAndOverwrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	if err := WriteFile(p, []byte("one"), 0); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := DefaultPerm &^ umask(); fi.Mode().Perm() != want {
		t.Errorf("new file mode %v, want %v", fi.Mode().Perm(), want)
	}
	// an existing file keeps its mode and gets the new contents whole
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("contents %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("overwritten file mode %v, want 0600", fi.Mode().Perm())
	}
	noTemps(t, dir)
}

func TestWriteFileSymlinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "real.bin")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.bin")
	if err := os.Symlink("sub/real.bin", link); err != nil { // relative to the link's folder
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new"), 0); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want new", b)
	}
	// a dangling link (through a second link) creates its target
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(sub, "fresh.bin"), filepath.Join(dir, "hop"))
	os.Symlink("hop", dangling)
	if err := WriteFile(dangling, []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(sub, "fresh.bin")); err != nil || string(b) != "x" {
		t.Errorf("dangling link target: %q %v", b, err)
	}
	if fi, _ := os.Lstat(dangling); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the dangling link was replaced")
	}
	// a link loop is an error naming the path given
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	err := WriteFile(filepath.Join(dir, "loop1"), []byte("x"), 0)
	if err == nil || !strings.Contains(err.Error(), "loop1") {
		t.Errorf("link loop: %v", err)
	}
	noTemps(t, dir)
	noTemps(t, sub)
}

func TestWriteFileRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	linkToDir := filepath.Join(dir, "todir")
	os.Symlink(sub, linkToDir)
	linkToFifo := filepath.Join(dir, "tofifo")
	os.Symlink(fifo, linkToFifo)
	for _, tc := range []struct {
		name, path, want string
		notRegular       bool
	}{
		{"directory", sub, "a directory", true},
		{"fifo", fifo, "a named pipe", true},
		{"link to a directory", linkToDir, "a directory", true},
		{"link to a fifo", linkToFifo, "a named pipe", true},
		{"missing folder", filepath.Join(dir, "nope", "out.bin"), "no such file or directory", false},
		{"empty name", "", "empty file name", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteFile(tc.path, []byte("data"), 0)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, tc.path) || strings.Contains(msg, ".tmp") {
				t.Errorf("error %q: want %q naming %q and no temporary file", msg, tc.want, tc.path)
			}
			if errors.Is(err, ErrNotRegular) != tc.notRegular {
				t.Errorf("errors.Is(ErrNotRegular) = %v", !tc.notRegular)
			}
			if tc.path != "" {
				if err := Check(tc.path); err == nil {
					t.Error("Check accepted it")
				}
			}
		})
	}
	if fi, _ := os.Lstat(linkToDir); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("link replaced")
	}
	if fi, _ := os.Stat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("fifo replaced")
	}
	if n := names(t, sub); len(n) != 0 {
		t.Errorf("files written into the directory: %v", n)
	}
	noTemps(t, dir)
}

func TestWriteFileUnwritableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes anywhere")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	p := filepath.Join(ro, "out.bin")
	os.WriteFile(p, []byte("keep"), 0o644)
	os.Chmod(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	err := WriteFile(p, []byte("new"), 0)
	if err == nil || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep" {
		t.Errorf("file changed to %q", b)
	}
	noTemps(t, ro)
}

func TestWriteFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.npy")
	os.WriteFile(a, []byte("old a"), 0o644)
	b := filepath.Join(dir, "b.npy")
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, tc := range []struct {
		name  string
		files []File
		want  string
	}{
		{"second is a directory", []File{{a, []byte("new a")}, {sub, []byte("x")}}, "a directory"},
		{"second folder missing", []File{{a, []byte("new a")}, {filepath.Join(dir, "nope", "b"), []byte("x")}}, "no such file"},
		{"same file twice", []File{{a, []byte("new a")}, {filepath.Join(dir, ".", "a.npy"), []byte("x")}}, "given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteFiles(tc.files, 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if got, _ := os.ReadFile(a); string(got) != "old a" {
				t.Errorf("a.npy changed to %q", got)
			}
			noTemps(t, dir)
		})
	}
	if err := WriteFiles([]File{{a, []byte("new a")}, {b, []byte("new b")}}, 0); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "new a", b: "new b"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
	noTemps(t, dir)
}
