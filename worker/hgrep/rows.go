package hgrep

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
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

// bigFile is the size above which a file is not read whole to verify
// rows: its hits are read back with ReadAt, unless a lone CR before the last
// hit makes row numbers need the whole prefix.
const bigFile = 32 << 20

// fileRows turns one file's hits into verified rows in first-seen order,
// one row per line. path is as rg printed it; dir resolves it.
func fileRows(dir, path string, hits []hit, binaryOffset *int, c *counts) []row {
	return verifiedRows(dir, path, hits, binaryOffset, c, bigFile)
}

func verifiedRows(dir, path string, hits []hit, binaryOffset *int, c *counts, big int64) []row {
	name := path
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	f, err := os.Open(name)
	if err != nil {
		c.unreadable++
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		c.unreadable++
		return nil
	}
	var content []byte // the whole file, when read whole
	if fi.Size() <= big || hitsNeedWholeFile(f, hits) {
		if content, err = io.ReadAll(io.NewSectionReader(f, 0, fi.Size())); err != nil {
			c.unreadable++
			return nil
		}
	}
	// matches reports whether the file holds exactly h's bytes at h's offset.
	matches := func(h hit) bool {
		if h.offset < 0 {
			return false
		}
		if content != nil {
			return h.offset+len(h.text) <= len(content) && bytes.Equal(content[h.offset:h.offset+len(h.text)], h.text)
		}
		buf := make([]byte, len(h.text))
		n, _ := f.ReadAt(buf, int64(h.offset))
		return n == len(buf) && bytes.Equal(buf, h.text)
	}
	var starts []int // row start offsets, built only for files with a lone CR
	if content != nil && hasLoneCR(content) {
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
		if !matches(h) {
			c.unverified += lineCount(h.text)
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

// hitsNeedWholeFile reports whether a lone CR occurs up to the end of the
// last hit (so rg's line numbers must be recounted), reading in chunks.
func hitsNeedWholeFile(f *os.File, hits []hit) bool {
	end := 0
	for _, h := range hits {
		end = max(end, h.offset+len(h.text))
	}
	r := io.NewSectionReader(f, 0, int64(end)+1) // +1: the byte after a final CR
	buf := make([]byte, 1<<20)
	pendingCR := false
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		if pendingCR && n > 0 {
			if chunk[0] != '\n' {
				return true
			}
			pendingCR = false
		}
		for i := 0; ; {
			j := bytes.IndexByte(chunk[i:], '\r')
			if j < 0 {
				break
			}
			i += j + 1
			if i == len(chunk) {
				pendingCR = true
				break
			}
			if chunk[i] != '\n' {
				return true
			}
		}
		if err != nil {
			return pendingCR || err != io.EOF
		}
	}
}

// lineCount is the number of LF-terminated (or final) lines in text.
func lineCount(text []byte) int {
	n := bytes.Count(text, []byte{'\n'})
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
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
