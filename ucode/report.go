package ucode

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// reportBlock is the per-block data the report's script shows on hover or click.
type reportBlock struct {
	Class   string       `json:"class"`
	Form    string       `json:"form,omitempty"`
	K       int          `json:"k"`
	Packed  bool         `json:"packed"`
	Ops     []string     `json:"ops,omitempty"`
	Control string       `json:"control,omitempty"`
	Lanes   []reportLane `json:"lanes"`
	Changed bool         `json:"changed,omitempty"`
}

type reportLane struct {
	Word   string `json:"word"`
	Kind   string `json:"kind"`
	Fields string `json:"fields"`
	Other  string `json:"other,omitempty"` // the diff set's word when it differs
	OtherF string `json:"otherFields,omitempty"`
}

// blockColour is the map colour of a block: grey OFF, blues for the two pass-through forms,
// yellow (k=1) to deep red (k=8) for ACTIVE.
func blockColour(in BlockInfo) string {
	switch in.Class {
	case ClassOff:
		return "#d9d9d9"
	case ClassPassthru:
		if in.Form == FormAllIdle {
			return "#6baed6"
		}
		return "#c6dbef"
	}
	hue, light := activeHSL(in.Depth)
	return fmt.Sprintf("hsl(%d,90%%,%d%%)", hue, light)
}

// activeHSL is the hue and lightness (percent) of an ACTIVE block of depth k; saturation is 90%.
func activeHSL(k int) (hue, light int) { return 55 - (k-1)*7, 70 - (k-1)*4 }

// blockLuminance is the WCAG relative luminance of blockColour(in).
func blockLuminance(in BlockInfo) float64 {
	var r, g, b float64
	switch {
	case in.Class == ClassOff:
		r, g, b = 0xd9, 0xd9, 0xd9
	case in.Class == ClassPassthru && in.Form == FormAllIdle:
		r, g, b = 0x6b, 0xae, 0xd6
	case in.Class == ClassPassthru:
		r, g, b = 0xc6, 0xdb, 0xef
	default:
		hue, light := activeHSL(in.Depth)
		r, g, b = hslToRGB(float64(hue), 0.9, float64(light)/100)
	}
	lin := func(c float64) float64 {
		c /= 255
		if c <= 0.03928 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// hslToRGB converts h in degrees, s and l in [0,1] to 0..255 components (CSS Color 4).
func hslToRGB(h, s, l float64) (r, g, b float64) {
	f := func(n float64) float64 {
		k := math.Mod(n+h/30, 12)
		a := s * math.Min(l, 1-l)
		return 255 * (l - a*math.Max(-1, math.Min(math.Min(k-3, 9-k), 1)))
	}
	return f(0), f(8), f(4)
}

// contrast is the WCAG contrast ratio of two relative luminances.
func contrast(l1, l2 float64) float64 {
	if l1 < l2 {
		l1, l2 = l2, l1
	}
	return (l1 + 0.05) / (l2 + 0.05)
}

// labelColour is the colour of a block's number and depth label on the map: black or white,
// whichever contrasts more with the block's fill (black on the deep reds fails WCAG's 4.5:1).
func labelColour(in BlockInfo) string {
	l := blockLuminance(in)
	if contrast(l, 0) >= contrast(l, 1) {
		return "#000"
	}
	return "#fff"
}

// WriteReport writes one self-contained HTML page (no network: inline CSS, SVG and script) for
// set s: an SVG map of every block coloured by class and depth, the lane table of a block on
// hover or click, the census and the opcode resolution list. With other != nil (same
// generation) it adds the diff and outlines the changed blocks.
//
// Every block of the map is the target #block-N: a link to it (the opcode table's fast rows link
// to their blocks) pins it, and pinning one puts its address in the page address.
func WriteReport(w io.Writer, s *TableSet, other *TableSet) error {
	l := layout(s.Gen)
	if l == nil {
		return s.Gen.Check()
	}
	if s.Datapath == nil {
		return s.needs(TableDatapath, "the report")
	}
	c, err := s.Census()
	if err != nil {
		return err
	}
	var d *Diff
	if other != nil {
		dd, err := DiffSets(s, other)
		if err != nil {
			return err
		}
		d = &dd
	}
	infos := s.Datapath.Analyze()
	blocks := make([]reportBlock, len(infos))
	for i, in := range infos {
		rb := reportBlock{Class: in.Class.String(), Form: in.Form.String(), K: in.Depth, Packed: in.LeftPacked}
		if s.Opcodes != nil {
			for _, op := range s.Opcodes.OpcodesOnRow(i) {
				rb.Ops = append(rb.Ops, fmt.Sprintf("%d %s", op, OpcodeName(op)))
			}
		}
		if s.Control != nil && i < len(s.Control.Rows) {
			rb.Control = s.Control.Rows[i].Hex()
		}
		for L, lw := range s.Datapath.Blocks[i] {
			kind := lw.Kind(s.Gen).String()
			if lw.Terminal(s.Gen) {
				kind = "terminal"
			}
			rl := reportLane{Word: fmt.Sprintf("%#016x", uint64(lw)), Kind: kind, Fields: lw.Format(s.Gen)}
			if d != nil {
				if ow := other.Datapath.Blocks[i][L]; ow != lw {
					rl.Other, rl.OtherF = fmt.Sprintf("%#016x", uint64(ow)), ow.Format(s.Gen)
					rb.Changed = true
				}
			}
			rb.Lanes = append(rb.Lanes, rl)
		}
		blocks[i] = rb
	}
	meta := struct {
		A      string        `json:"a"`
		B      string        `json:"b,omitempty"`
		Blocks []reportBlock `json:"blocks"`
	}{A: s.Name, Blocks: blocks}
	if d != nil {
		meta.B = other.Name
	}
	data, err := json.Marshal(meta) // escapes <, >, & so it is safe inside <script>
	if err != nil {
		return err
	}
	var b strings.Builder
	esc := html.EscapeString
	title := fmt.Sprintf("DVE tables: %s %s", s.Gen, s.Name)
	if d != nil {
		title += " vs " + other.Name
	}
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;font-variant-numeric:tabular-nums}
th{background:#f0f0f0}.mono{font-family:ui-monospace,monospace;font-size:12px}
#wrap{display:flex;gap:1.5em;align-items:flex-start;flex-wrap:wrap}
#map{flex:none}
#map text.op{text-anchor:end;font-size:9px}
#panel{flex:1 1 24em;min-width:24em;max-width:60em;overflow-x:auto}
svg rect{cursor:pointer}svg rect.sel{stroke:#000;stroke-width:4px;stroke-dasharray:none}
svg text{font:9px monospace;pointer-events:none}svg text.d{font-weight:bold;font-size:11px}
.legend span{white-space:nowrap}.legend i{display:inline-block;width:1em;height:1em;vertical-align:middle;margin:0 .3em 0 1em;border:1px solid #999}
.changed{background:#fde0ef}
</style></head><body>
<h1>%s</h1>
<p>Generation: <b>%s</b> (%s). %s</p>
`, esc(title), esc(title), esc(s.Gen.String()), esc(s.Gen.Generation().String()), esc(s.GenReason))
	item := func(style, label string) {
		fmt.Fprintf(&b, `<span><i style="%s"></i>%s</span> `, style, label)
	}
	b.WriteString(`<p class="legend">Legend: `)
	item("background:#d9d9d9", "OFF")
	item("background:#6baed6", "PASSTHRU all-idle")
	item("background:#c6dbef", "PASSTHRU idle+zero")
	for k := 1; k <= LanesPerBlock; k++ {
		item("background:"+blockColour(BlockInfo{Class: ClassActive, Depth: k}), fmt.Sprintf("k=%d", k))
	}
	if d != nil {
		item("border:3px solid #d0006f", "changed in diff (also marked &Delta;)")
	}
	item("border:2px dashed #000", "not left-packed")
	b.WriteString("</p>\n")
	// SVG map.
	const cols, cw, ch = 16, 44, 30
	rows := (len(infos) + cols - 1) / cols
	fmt.Fprintf(&b, `<div id="wrap"><svg id="map" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="datapath block map">`+"\n",
		cols*cw+4, rows*ch+4, cols*cw+4, rows*ch+4)
	for i, in := range infos {
		x, y := 2+(i%cols)*cw, 2+(i/cols)*ch
		stroke, sw, dash := "#fff", 1, ""
		if !in.LeftPacked {
			stroke, sw, dash = "#000", 2, ` stroke-dasharray="4 2"`
		}
		if d != nil && d.ChangedBlocksA[i] {
			stroke, sw = "#d0006f", 3
		}
		changed := ""
		if d != nil && d.ChangedBlocksA[i] {
			changed = " (changed)"
		}
		ops := ""
		if len(blocks[i].Ops) > 0 {
			ops = "; opcodes " + strings.Join(blocks[i].Ops, ", ")
		}
		fmt.Fprintf(&b, `<rect data-b="%d" tabindex="0" id="block-%d" x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="%s" stroke-width="%d"%s><title>block %d: %s k=%d%s%s</title></rect>`,
			i, i, x, y, cw-2, ch-2, blockColour(in), stroke, sw, dash, i, in.Class, in.Depth, changed, esc(ops))
		lc := labelColour(in)
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%d</text><text x="%d" y="%d" fill="%s">k%d</text>`, x+3, y+11, lc, i, x+3, y+23, lc, in.Depth)
		if len(blocks[i].Ops) > 0 {
			// The first opcode on the block's row, by number (the title lists them all).
			first, _, _ := strings.Cut(blocks[i].Ops[0], " ")
			more := ""
			if len(blocks[i].Ops) > 1 {
				more = "+"
			}
			fmt.Fprintf(&b, `<text class="op" x="%d" y="%d" fill="%s">%s%s</text>`, x+cw-4, y+23, lc, first, more)
		}
		if changed != "" {
			// A shape cue besides the outline colour, which deep red blocks and red-green colour
			// blindness both weaken.
			fmt.Fprintf(&b, `<text class="d" x="%d" y="%d" fill="%s">&#916;</text>`, x+cw-15, y+13, lc)
		}
		b.WriteString("\n")
	}
	b.WriteString(`</svg><div id="panel" aria-live="polite"><p>Hover over, click or tab to a block to see its lanes; a click (or Enter) pins it, and the page address (#block-N) then links to it, as do the fast rows of the opcode table below. The number at a block's lower right is the first opcode on its row (+: more; its title lists them).</p></div></div>` + "\n")
	// Census.
	b.WriteString("<h2>Census</h2>\n<table>")
	row := func(k string, v any) { fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>", esc(k), esc(fmt.Sprint(v))) }
	row("blocks", c.Blocks)
	row("OFF", c.Off)
	row("PASSTHRU (all-idle + idle+zero)", fmt.Sprintf("%d (%d + %d); all-idle rows %v", c.Passthru, c.PassthruAllIdle, c.PassthruIdleZero, c.AllIdleRows))
	row("ACTIVE", c.Active)
	row("nonzero words", c.NonzeroWords)
	row(fmt.Sprintf("idle words (%#x)", uint64(s.Gen.IdleWord())), c.IdleWords)
	row("active (non-idle nonzero) words", c.ActiveWords)
	row("terminal lanes (VALID clear)", c.TerminalLanes)
	row("highest bit in an active word", c.HighestBit)
	row("left-packing violations", fmt.Sprint(c.PackingViolations))
	row("orphan active blocks", fmt.Sprint(c.OrphanBlocks))
	if c.UsedControlRows >= 0 {
		row("used control rows", c.UsedControlRows)
	}
	if c.UsedSlowRows >= 0 {
		row("used slow rows", c.UsedSlowRows)
	}
	if c.EnabledOpcodes >= 0 {
		row("enabled opcode slots", c.EnabledOpcodes)
	}
	b.WriteString("</table>\n<h3>Depth k histogram</h3>\n<table><tr><th>k</th><th>blocks</th><th>opcodes</th></tr>")
	for _, db := range c.Depths {
		var ops []string
		for _, op := range db.Opcodes {
			ops = append(ops, fmt.Sprintf("%d %s", op, OpcodeName(op)))
		}
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%d</td><td>%s</td></tr>", db.K, len(db.Blocks), esc(strings.Join(ops, ", ")))
	}
	b.WriteString("</table>\n<h3>Per-bit set counts over active words</h3>\n<table class=\"mono\">")
	top := c.HighestBit
	if top < 0 {
		top = 0
	}
	// 16 bits a row pair, so that a gen3/gen4 word does not push the page wider than a screen.
	for lo := 0; lo <= top; lo += 16 {
		hi := min(lo+15, top)
		b.WriteString("<tr><th>bit</th>")
		for bit := lo; bit <= hi; bit++ {
			fmt.Fprintf(&b, "<th>%d</th>", bit)
		}
		b.WriteString("</tr><tr><th>count</th>")
		for bit := lo; bit <= hi; bit++ {
			fmt.Fprintf(&b, "<td>%d</td>", c.BitCounts[bit])
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>\n")
	// Diff.
	if d != nil {
		fmt.Fprintf(&b, "<h2>Diff: %s vs %s</h2>\n<table>", esc(s.Name), esc(other.Name))
		row("differing lane words", len(d.Words))
		row("differing blocks", fmt.Sprintf("%d: %v", len(d.Blocks), d.Blocks))
		row("distinct XOR deltas", len(d.Deltas))
		row("differing opcode slots", fmt.Sprint(d.OpcodeSlots))
		row("affected opcodes", fmt.Sprint(d.Opcodes))
		row("differing control rows", fmt.Sprintf("%d: %v", len(d.ControlRows), d.ControlRows))
		row("differing slow rows", fmt.Sprintf("%d: %v", len(d.SlowRows), d.SlowRows))
		b.WriteString("</table>\n<h3>XOR deltas (most frequent first)</h3>\n<table class=\"mono\"><tr><th>xor</th><th>words</th><th>fields</th></tr>")
		for _, x := range d.Deltas {
			fmt.Fprintf(&b, "<tr><td>%#016x</td><td>%d</td><td>%s</td></tr>", uint64(x.XOR), x.Count, esc(strings.Join(l.differing(x.XOR, 0), " ")))
		}
		b.WriteString("</table>\n")
	}
	// Opcodes.
	if s.Opcodes != nil {
		b.WriteString("<h2>Opcodes</h2>\n<table><tr><th>op</th><th>name</th><th>entry</th><th>fast row</th><th>slow row</th><th>class</th><th>k</th><th>shares row with</th></tr>")
		for _, op := range s.Opcodes.Enabled() {
			r, _ := s.Lookup(op)
			var share []string
			for _, o := range r.SharesRow {
				t := fmt.Sprintf("%d %s", o, OpcodeName(o))
				if r.HasTwin && o == r.Twin {
					t += " (twin)"
				}
				share = append(share, t)
			}
			fast := fmt.Sprint(r.FastRow)
			if r.Block != nil {
				fast = fmt.Sprintf(`<a href="#block-%d">%d</a>`, r.FastRow, r.FastRow)
			}
			fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td><td class=\"mono\">%#x</td><td>%s</td><td>%d</td><td>%s</td><td>%d</td><td>%s</td></tr>",
				op, esc(r.Name), r.Entry.Raw, fast, r.SlowRow, r.Class(), r.Depth(), esc(strings.Join(share, ", ")))
		}
		b.WriteString("</table>\n")
	}
	fmt.Fprintf(&b, `<script type="application/json" id="blocks">%s</script>
<script>
(function(){
var D=JSON.parse(document.getElementById('blocks').textContent),B=D.blocks,panel=document.getElementById('panel'),pinned=-1,shown=-1;
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function rect(i){return document.querySelector('#map rect[data-b="'+i+'"]');}
function show(i){var b=B[i],h='<h2>Block '+i+': '+esc(b.class)+(b.form?' ('+esc(b.form)+')':'')+', k='+b.k+(b.packed?'':' <b>NOT left-packed</b>')+(b.changed?' &Delta; changed':'')+'</h2>';
h+='<p>'+(pinned===i?'Pinned (<a href="#block-'+i+'">link to this block</a>): click it again (or press Escape) to release.':'Click to pin.')+'</p>';
if(b.ops&&b.ops.length)h+='<p>Opcodes on this row: '+esc(b.ops.join(', '))+'</p>';
if(b.control)h+='<p>Control row: <span class="mono">'+esc(b.control)+'</span></p>';
var set=function(n){return D.b?'<td>'+esc(n)+'</td>':'';};
h+='<table class="mono"><tr><th>lane</th>'+(D.b?'<th>set</th>':'')+'<th>word</th><th>kind</th><th>fields</th></tr>';
b.lanes.forEach(function(l,L){h+='<tr'+(l.other?' class="changed"':'')+'><td>'+L+'</td>'+set(D.a)+'<td>'+esc(l.word)+'</td><td>'+esc(l.kind)+'</td><td>'+esc(l.fields)+'</td></tr>';
if(l.other)h+='<tr class="changed"><td></td>'+set(D.b)+'<td>'+esc(l.other)+'</td><td></td><td>'+esc(l.otherFields)+'</td></tr>';});
panel.innerHTML=h+'</table>';
if(shown>=0)rect(shown).classList.remove('sel');shown=i;rect(i).classList.add('sel');}
function pin(i){pinned=(pinned===i)?-1:i;show(i);history.replaceState(null,'',pinned>=0?'#block-'+pinned:location.pathname+location.search);}
function fromHash(){var m=/^#block-(\d+)$/.exec(location.hash);if(m&&B[+m[1]]){pinned=+m[1];show(pinned);}}
window.addEventListener('hashchange',fromHash);fromHash();
document.addEventListener('keydown',function(e){if(e.key==='Escape'&&pinned>=0){var i=pinned;pinned=-1;show(i);}});
document.querySelectorAll('#map rect').forEach(function(r){var i=+r.getAttribute('data-b');
r.addEventListener('mouseenter',function(){if(pinned<0)show(i);});
r.addEventListener('focus',function(){if(pinned<0)show(i);});
r.addEventListener('click',function(){pin(i);});
r.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();pin(i);}});});
})();
</script>
</body></html>
`, data)
	_, err = io.WriteString(w, b.String())
	return err
}
