package num

import (
	"strings"
	"testing"
)

// TestParseKindUnknownListsNames: an unknown name's error lists the names that work.
func TestParseKindUnknownListsNames(t *testing.T) {
	_, err := ParseKind("u16")
	if err == nil || !strings.Contains(err.Error(), "uint16") || !strings.Contains(err.Error(), "bfloat16") {
		t.Fatalf("ParseKind(u16) = %v, want the accepted names listed", err)
	}
}
