// Package atomicfile writes output files whole or not at all (DESIGN.md §7): each file is
// written to a hidden temporary file in the directory of its target, synced, and renamed over
// the target only when every file of the set has been written.
//
// Targets are resolved through symbolic links, so writing to a link replaces the file it points
// to and leaves the link in place. An existing target that is not a regular file (a directory,
// a device, a FIFO, /dev/stdout) is refused before anything is written. New files are created
// with the permission given (0644 for outputs; the umask applies); an existing regular file
// keeps its permission bits. Errors name the path the caller gave, never the temporary file,
// and the temporary files are removed on any failure.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultPerm is the permission of a new output file before the umask.
const DefaultPerm os.FileMode = 0o644

// File is one file of a set written together.
type File struct {
	Path string
	Data []byte
}

// ErrNotRegular is wrapped by the error for an existing target that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// WriteFile writes data to path whole or not at all. perm is the permission of a new file
// (0 means DefaultPerm); the umask applies.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFiles([]File{{Path: path, Data: data}}, perm)
}

// WriteFiles writes every file of the set to a temporary file beside its target, then renames
// them all. Nothing is renamed unless every temporary file was written and synced, so an error
// while writing (disk full, permission, a bad target) leaves every target as it was; only a
// failing rename, after the earlier ones succeeded, can leave part of the set committed. Two
// entries that resolve to the same file are an error.
func WriteFiles(files []File, perm os.FileMode) error {
	if perm == 0 {
		perm = DefaultPerm
	}
	targets := make([]string, len(files))
	seen := map[string]string{}
	for i, f := range files {
		t, err := Target(f.Path)
		if err != nil {
			return err
		}
		if abs, err := filepath.Abs(t); err == nil {
			if prev, dup := seen[abs]; dup {
				return &fs.PathError{Op: "write", Path: f.Path, Err: fmt.Errorf("the same file as %s: an output is given twice", prev)}
			}
			seen[abs] = f.Path
		}
		targets[i] = t
	}
	tmps := make([]string, 0, len(files))
	cleanup := func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	for i, f := range files {
		tmp, err := writeTemp(targets[i], f.Data, perm)
		if err != nil {
			cleanup()
			return &fs.PathError{Op: "write", Path: f.Path, Err: cause(err)}
		}
		tmps = append(tmps, tmp)
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], targets[i]); err != nil {
			cleanup()
			return &fs.PathError{Op: "write", Path: f.Path, Err: cause(err)}
		}
		tmps[i] = "" // renamed: nothing to clean up
		syncDir(filepath.Dir(targets[i]))
	}
	return nil
}

// Check reports whether path can be an output target: it does not exist yet (its link chain
// resolves and its folder exists), or it is (or links to) a regular file. It writes nothing; commands call it
// before a long run so a bad output path is a usage error up front.
func Check(path string) error {
	_, err := Target(path)
	return err
}

// Target is the file a write to path replaces: path itself, or the end of its chain of
// symbolic links (which need not exist yet). It refuses an existing target that is not a
// regular file, and an empty path.
func Target(path string) (string, error) {
	if path == "" {
		return "", &fs.PathError{Op: "write", Path: path, Err: errors.New("empty file name")}
	}
	fi, err := os.Stat(path) // follows every link
	switch {
	case err == nil:
		if !fi.Mode().IsRegular() {
			return "", &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, describe(fi.Mode()))}
		}
		if lfi, lerr := os.Lstat(path); lerr == nil && lfi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", &fs.PathError{Op: "write", Path: path, Err: cause(err)}
		}
		return t, nil
	case errors.Is(err, fs.ErrNotExist):
		// A new file, or a link whose target does not exist yet: follow the chain by hand.
		t, err := followLinks(path)
		if err != nil {
			return "", &fs.PathError{Op: "write", Path: path, Err: cause(err)}
		}
		// the new file's folder must exist
		if di, err := os.Stat(filepath.Dir(t)); err != nil {
			return "", &fs.PathError{Op: "write", Path: path, Err: cause(err)}
		} else if !di.IsDir() {
			return "", &fs.PathError{Op: "write", Path: path, Err: syscall.ENOTDIR}
		}
		return t, nil
	default:
		return "", &fs.PathError{Op: "write", Path: path, Err: cause(err)}
	}
}

// followLinks resolves a chain of symbolic links whose last element does not exist.
func followLinks(path string) (string, error) {
	p := path
	for hops := 0; hops < 40; hops++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

var tmpSeq atomic.Uint64

// writeTemp writes data to a new hidden file beside target, synced and closed, and returns its
// name. A new target gets perm (through the umask: the file is created with it); an existing one
// keeps its mode.
func writeTemp(target string, data []byte, perm os.FileMode) (string, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	mode, keep := perm, false
	if fi, err := os.Stat(target); err == nil {
		mode, keep = fi.Mode().Perm(), true
	}
	var (
		fh   *os.File
		name string
		err  error
	)
	for try := 0; try < 100; try++ {
		suffix := strconv.FormatUint(uint64(time.Now().UnixNano())+tmpSeq.Add(1)*7919, 36)
		name = filepath.Join(dir, "."+base+"."+suffix+".tmp")
		fh, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		fh.Close()
		os.Remove(name)
		return "", err
	}
	if keep {
		// OpenFile applied the umask; an existing file keeps its exact bits.
		if err := fh.Chmod(mode); err != nil {
			return fail(err)
		}
	}
	if _, err := fh.Write(data); err != nil {
		return fail(err)
	}
	if err := fh.Sync(); err != nil {
		return fail(err)
	}
	if err := fh.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// syncDir makes a rename durable where the system allows it (best effort).
func syncDir(dir string) {
	if dir == "" {
		dir = "."
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// cause strips the operation and path an os error carries, so the caller's error names the
// user's path and never a temporary file.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
