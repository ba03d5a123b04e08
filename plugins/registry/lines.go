package registry

import (
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLines maps where each key of a tool file is: "tool.N" is the line of
// the N-th [[tool]] header (0-based N), "tool.N.KEY" and
// "tool.N.KEY.SUB" the line of that key (inline tables and [tool.KEY]
// sub-tables alike), and a top-level key its own name.
type keyLines map[string]int

// lineOf finds the line of path, else of its nearest parent, else 1.
func (l keyLines) lineOf(path string) int {
	for {
		if n, ok := l[path]; ok {
			return n
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return 1
		}
		path = path[:i]
	}
}

// scanLines walks a document that decoded cleanly with go-toml's parser,
// recording the line of every key.
func scanLines(data []byte) keyLines {
	lines := keyLines{}
	var p unstable.Parser
	p.Reset(data)
	ctx, tools := "", -1
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			key, line := joinKey(&p, e.Key())
			switch {
			case e.Kind == unstable.ArrayTable && key == "tool":
				tools++
				ctx = "tool." + strconv.Itoa(tools)
			case strings.HasPrefix(key, "tool.") && tools >= 0:
				ctx = "tool." + strconv.Itoa(tools) + key[len("tool"):]
			default:
				ctx = key
			}
			lines[ctx] = line
		case unstable.KeyValue:
			recordKeyValue(&p, lines, ctx, e)
		}
	}
	return lines
}

// recordKeyValue records a key = value line, and the keys of an inline
// table value below it.
func recordKeyValue(p *unstable.Parser, lines keyLines, ctx string, kv *unstable.Node) {
	key, line := joinKey(p, kv.Key())
	if ctx != "" {
		key = ctx + "." + key
	}
	lines[key] = line
	if v := kv.Value(); v != nil && v.Kind == unstable.InlineTable {
		it := v.Children()
		for it.Next() {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				recordKeyValue(p, lines, key, n)
			}
		}
	}
}

// joinKey is a dotted key's text and the line it starts on.
func joinKey(p *unstable.Parser, it unstable.Iterator) (string, int) {
	var parts []string
	line := 0
	for it.Next() {
		n := it.Node()
		if line == 0 {
			line = p.Shape(n.Raw).Start.Line
		}
		parts = append(parts, string(n.Data))
	}
	return strings.Join(parts, "."), line
}
