package ucode

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestReport checks the figures the seed and FACTS publish for the synthetic sets appear: gen4
// saturate vs default (seed 004 §9: 29 blocks, 65 distinct deltas, 0x0001800001540000), the gen4
// census (155 ACTIVE), the gen2 all-idle rows (seed 004 §2).
func TestReport(t *testing.T) {
	cases := []struct {
		name, a, b string
		want       []string
		outlined   int
	}{
		{"gen4 saturate diff", "gen4/default", "gen4/saturate", []string{"<svg", `data-b="255"`, "Census", "<th>ACTIVE</th><td>155</td>",
			"distinct XOR deltas</th><td>65</td>", `stroke="#d0006f"`, "0x0001800001540000", "QuantizeMX"}, 29},
		{"gen2", "gen2/default", "", []string{"all-idle rows [1 36 39 45 48 105]"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var other *TableSet
			if c.b != "" {
				other = mustFixture(t, c.b)
			}
			var b strings.Builder
			if err := WriteReport(&b, mustFixture(t, c.a), other); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, want := range c.want {
				if !strings.Contains(out, want) {
					t.Errorf("report lacks %q", want)
				}
			}
			if n := strings.Count(out, `stroke="#d0006f"`); n != c.outlined {
				t.Errorf("%d changed blocks outlined, want %d", n, c.outlined)
			}
		})
	}
}

// TestReportPage checks what a browser needs of the report without a browser: balanced markup,
// nothing fetched, one focusable hover/click target with a tooltip per block, the script's data
// parseable and matching the map, changed blocks marked by shape as well as colour, and no
// table row wider than 16 bit columns (a 60-bit gen4 row made the page 1900 px wide).
func TestReportPage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    string
		changed int
	}{{"gen2", "gen2/default", "", 0}, {"gen4 diff", "gen4/default", "gen4/saturate", 29}} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustFixture(t, tc.a)
			var other *TableSet
			if tc.b != "" {
				other = mustFixture(t, tc.b)
			}
			var b strings.Builder
			if err := WriteReport(&b, s, other); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if err := checkMarkup(out); err != nil {
				t.Error(err)
			}
			if (other != nil) != strings.Contains(out, "changed in diff") {
				t.Error("the legend's diff entry belongs to diff reports only")
			}
			low := strings.ToLower(out)
			for _, bad := range []string{"http:", "https:", "//cdn", " src=", "<link", "@import", "url(", "<iframe", "fetch(", "xmlhttprequest"} {
				if strings.Contains(low, bad) {
					t.Errorf("report is not self-contained: has %q", bad)
				}
			}
			// Links stay inside the page: each names a block of the map.
			for _, m := range regexp.MustCompile(`href=("[^"]*"|'[^']*)`).FindAllStringSubmatch(out, -1) {
				if !regexp.MustCompile(`^["']#block-`).MatchString(m[1]) {
					t.Errorf("a link out of the page: href=%s", m[1])
				}
			}
			n := len(s.Datapath.Blocks)
			for i := range n {
				re := regexp.MustCompile(`<rect data-b="` + fmt.Sprint(i) + `" tabindex="0" [^>]*><title>block ` + fmt.Sprint(i) + `: `)
				if got := len(re.FindAllString(out, -1)); got != 1 {
					t.Errorf("block %d: %d focusable targets with a title, want 1", i, got)
				}
			}
			if got := strings.Count(out, "<rect "); got != n {
				t.Errorf("%d rects, want %d", got, n)
			}
			m := regexp.MustCompile(`(?s)<script type="application/json" id="blocks">(.*?)</script>`).FindStringSubmatch(out)
			if m == nil {
				t.Fatal("no block data")
			}
			var data struct {
				A, B   string
				Blocks []reportBlock
			}
			if err := json.Unmarshal([]byte(m[1]), &data); err != nil {
				t.Fatalf("block data: %v", err)
			}
			changed := 0
			for i, rb := range data.Blocks {
				if len(rb.Lanes) != LanesPerBlock {
					t.Errorf("block %d: %d lanes", i, len(rb.Lanes))
				}
				if rb.Changed {
					changed++
				}
			}
			if len(data.Blocks) != n || data.A != s.Name || (other != nil && data.B != other.Name) {
				t.Errorf("block data: %d blocks, sets %q %q", len(data.Blocks), data.A, data.B)
			}
			if changed != tc.changed || strings.Count(out, `stroke="#d0006f"`) != tc.changed || strings.Count(out, `<text class="d"`) != tc.changed {
				t.Errorf("changed blocks: %d in data, %d outlined, %d marked; want %d", changed,
					strings.Count(out, `stroke="#d0006f"`), strings.Count(out, `<text class="d"`), tc.changed)
			}
			for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(out, -1) {
				if c := strings.Count(row, "<th>") + strings.Count(row, "<td>"); c > 17 {
					t.Errorf("a table row of %d cells: %.80s", c, row)
				}
			}
		})
	}
}

// checkMarkup checks that every element is closed in order (void elements aside), outside the
// scripts and style, whose text it skips.
func checkMarkup(doc string) error {
	void := map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "input": true, "link": true}
	tag := regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>`)
	var stack []string
	for pos := 0; ; {
		loc := tag.FindStringSubmatchIndex(doc[pos:])
		if loc == nil {
			break
		}
		closing, name, self := doc[pos+loc[2]:pos+loc[3]] != "", strings.ToLower(doc[pos+loc[4]:pos+loc[5]]), doc[pos+loc[6]:pos+loc[7]] != ""
		pos += loc[1]
		switch {
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return fmt.Errorf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		case void[name] || self:
		case name == "script" || name == "style":
			end := strings.Index(strings.ToLower(doc[pos:]), "</"+name)
			if end < 0 {
				return fmt.Errorf("<%s> not closed", name)
			}
			pos += end
			stack = append(stack, name)
		default:
			stack = append(stack, name)
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("unclosed %v", stack)
	}
	return nil
}

// TestReportLabelContrast: every map colour gets the label colour that reads on it, at WCAG's
// 4.5:1 for small text (black on the k=8 red was 3.7:1).
func TestReportLabelContrast(t *testing.T) {
	if r, g, b := hslToRGB(0, 1, 0.5); r != 255 || g != 0 || b != 0 {
		t.Errorf("hsl(0,100%%,50%%) = %v %v %v", r, g, b)
	}
	if r, g, b := hslToRGB(120, 1, 0.25); r != 0 || g != 127.5 || b != 0 {
		t.Errorf("hsl(120,100%%,25%%) = %v %v %v", r, g, b)
	}
	infos := []BlockInfo{{Class: ClassOff}, {Class: ClassPassthru, Form: FormAllIdle}, {Class: ClassPassthru, Form: FormIdleZero}}
	for k := 1; k <= LanesPerBlock; k++ {
		infos = append(infos, BlockInfo{Class: ClassActive, Depth: k})
	}
	for _, in := range infos {
		t.Run(fmt.Sprintf("%v k=%d", in.Class, in.Depth), func(t *testing.T) {
			l, fg := blockLuminance(in), 0.0
			if labelColour(in) == "#fff" {
				fg = 1
			}
			if c := contrast(l, fg); c < 4.5 {
				t.Errorf("%s: label %s contrast %.2f", blockColour(in), labelColour(in), c)
			}
		})
	}
	if labelColour(BlockInfo{Class: ClassActive, Depth: 8}) != "#fff" || labelColour(BlockInfo{Class: ClassOff}) != "#000" {
		t.Error("label colours")
	}
}

func TestProvenance(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Provenance() {
		t.Run(p.ID, func(t *testing.T) {
			if p.ID == "" || (p.Kind != "behaviour" && p.Kind != "rule") || p.Source == "" || p.Text == "" || seen[p.ID] || !strings.HasPrefix(p.ID, "ucode.") {
				t.Errorf("bad entry %+v", p)
			}
			seen[p.ID] = true
			if (p.Confidence.Kind == "INFERRED" || p.Confidence.Kind == "INVENTED") && p.Reason == "" {
				t.Errorf("%s without a reason", p.Confidence)
			}
		})
	}
}

// TestReportOpcodeLabelsAndLinks: each block of the map names the opcodes on its row (title and
// label), a pinned block is linkable as #block-N and its panel links to itself, and the opcode
// table's fast rows link to their blocks. gen3 op65 is on fast row 8 (FACTS
// §E.2, 0x3008), shared with its twin 81.
func TestReportOpcodeLabelsAndLinks(t *testing.T) {
	s, err := Load([]string{"../testdata/ucode/dve_bin_gen3"}, "", GenUnknown)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteReport(&b, s, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`id="block-8"`, "opcodes 65 TensorTensorArithOp, 81 TensorTensorBitvecOp", `class="op"`, `>65+</text>`,
		"'#block-'+pinned", "fromHash", `link to this block`, `<tr><td>65</td><td>TensorTensorArithOp</td><td class="mono">0x3008</td><td><a href="#block-8">8</a></td>`} {
		t.Run(want, func(t *testing.T) {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q", want)
			}
		})
	}
	// Every block linked to is a block of the map.
	for _, m := range regexp.MustCompile(`href="#block-(\d+)"`).FindAllStringSubmatch(out, -1) {
		if !strings.Contains(out, `id="block-`+m[1]+`"`) {
			t.Errorf("a link to block %s, which the map lacks", m[1])
		}
	}
}
