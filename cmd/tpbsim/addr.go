package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tpbsim/tpbsim/isa"
)

// The CLI address syntax (DESIGN.md §7) is parsed by isa.ParseAddress so every command (and
// package) reads `sbuf:P:OFF`, `psum:P:OFF`, `hbm:ADDR`, `reg:N` and raw numbers the same way,
// with the partition stride of the chosen generation.

// parseCLIAddress reads one address argument for generation g; errors name the flag.
func parseCLIAddress(flag, s string, g isa.Generation) (isa.Location, error) {
	loc, err := isa.ParseAddress(s, g)
	if err != nil {
		return isa.Location{}, fmt.Errorf("%s: %w", flag, err)
	}
	return loc, nil
}

// parseGenFlag reads --gen (default CAYMAN, DESIGN.md §1).
func parseGenFlag(s string) (isa.Generation, error) {
	if s == "" {
		return isa.DefaultGeneration, nil
	}
	return isa.ParseGeneration(s)
}

// writeWholeFile writes data to path whole or not at all: a temp file in the same directory,
// synced, then renamed over path.
func writeWholeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}
