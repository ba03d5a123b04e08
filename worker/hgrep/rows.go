package hgrep

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	"hpatch-router/retain"
)

// rgText is ripgrep's arbitrary-data object: {"text": …} or {"bytes": base64}.
type rgText struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

// value returns the data's bytes; ok is false for malformed base64.
func (t rgText) value() ([]byte, bool) {
	switch {
	case t.Text != nil:
		return []byte(*t.Text), true
	case t.Bytes != nil:
		b, err := base64.StdEncoding.DecodeString(*t.Bytes)
		return b, err == nil
	}
	return nil, false
}

// rgMessage is one line of rg --json output; only the fields hgrep reads.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path           rgText `json:"path"`
		Lines          rgText `json:"lines"`
		LineNumber     *int   `json:"line_number"`
		AbsoluteOffset *int   `json:"absolute_offset"`
		BinaryOffset   *int   `json:"binary_offset"`
	} `json:"data"`
}

// hit is one match or context message: the line(s) as rg reported them,
// terminators included, at a byte offset of the file.
type hit struct {
	line   int
	offset int
	text   []byte
}

// row is one verified output row.
type row struct {
	num  int
	text []byte
}

// counts are the reasons rows were left out, reported once at the end.
type counts struct {
	notUTF8      int // lines that are not valid UTF-8
	unverified   int // lines that are not byte-for-byte a line of the file
	binary       int // lines at or after binary data
	badPathFiles int // files whose names are not UTF-8
	unreadable   int // files that could not be read back
}

// fileRows turns one file's hits into verified rows in first-seen order,
// one row per line. path is as rg printed it; dir resolves it.
func fileRows(dir, path string, hits []hit, binaryOffset *int, c *counts) []row {
	name := path
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	content, err := os.ReadFile(name)
	if err != nil {
		c.unreadable++
		return nil
	}
	var starts []int // row start offsets, built only for files with a lone CR
	if hasLoneCR(content) {
		starts = rowStarts(content)
	}
	seen := map[int]bool{}
	var out []row
	add := func(num int, text []byte) {
		if seen[num] {
			return
		}
		seen[num] = true
		if !utf8.Valid(text) {
			c.notUTF8++
			return
		}
		out = append(out, row{num, text})
	}
	for _, h := range hits {
		if h.offset < 0 || h.offset+len(h.text) > len(content) ||
			!bytes.Equal(content[h.offset:h.offset+len(h.text)], h.text) {
			c.unverified += bytes.Count(h.text, []byte{'\n'}) + 1
			continue
		}
		if binaryOffset != nil && h.offset+len(h.text) > *binaryOffset {
			c.binary++
			continue
		}
		if starts != nil {
			// Number rows by the project's rule: every row starting inside
			// the hit, counted from the file's own row starts.
			i := sort.SearchInts(starts, h.offset)
			for ; i < len(starts) && starts[i] < h.offset+len(h.text); i++ {
				add(i+1, rowText(content, starts[i]))
			}
			continue
		}
		num, rest := h.line, h.text
		for len(rest) > 0 {
			line, next, _ := bytes.Cut(rest, []byte{'\n'})
			add(num, bytes.TrimSuffix(line, []byte{'\r'}))
			num, rest = num+1, next
		}
	}
	return out
}

// hasLoneCR reports whether data has a CR that is not followed by LF: only
// then do ripgrep's line numbers (LF only) differ from the row rule.
func hasLoneCR(data []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\r')
		if j < 0 {
			return false
		}
		i += j + 1
		if i >= len(data) || data[i] != '\n' {
			return true
		}
	}
}

// rowStarts returns the start offset of every row of data.
func rowStarts(data []byte) []int {
	starts := []int{}
	if len(data) > 0 {
		starts = append(starts, 0)
	}
	for i := 0; i < len(data); i++ {
		end := -1
		switch data[i] {
		case '\n':
			end = i + 1
		case '\r':
			end = i + 1
			if end < len(data) && data[end] == '\n' {
				end++
			}
		}
		if end >= 0 {
			if end < len(data) {
				starts = append(starts, end)
			}
			i = end - 1
		}
	}
	return starts
}

// rowText is the text of the row starting at start, without terminator.
func rowText(data []byte, start int) []byte {
	rest := data[start:]
	if i := bytes.IndexAny(rest, "\r\n"); i >= 0 {
		return rest[:i]
	}
	return rest
}

// QuotePath is PATH as rows print it: a JSON string, HTML characters kept.
func QuotePath(path string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(path) // a string always encodes
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}

// AppendRow appends one row `QUOTED:LINE:HASH TEXT\n` to dst. quoted is a
// path from QuotePath.
func AppendRow(dst []byte, quoted string, num int, text []byte) []byte {
	dst = append(dst, quoted...)
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, int64(num), 10)
	dst = append(dst, ':')
	dst = append(dst, retain.Hash(text)...)
	dst = append(dst, ' ')
	dst = append(dst, text...)
	return append(dst, '\n')
}
