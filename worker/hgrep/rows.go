package hgrep

import (
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"hpatch-router/regfile"
	"hpatch-router/rows"
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
	tooLong      int // lines whose rg message was too long to be a row
}

// bigFile is the size above which a file is not read whole to verify
// rows: its hits are read back with ReadAt, unless a lone CR before the last
// hit makes row numbers need the whole prefix.
const bigFile = 32 << 20

// fileRows turns one file's hits into verified rows in first-seen order,
// one row per line. path is as rg printed it; dir resolves it. A prefix
// read to renumber rows is at most input bytes.
func fileRows(dir, path string, hits []hit, binaryOffset *int, c *counts, input int64) []row {
	return verifiedRows(dir, path, hits, binaryOffset, c, bigFile, input)
}

func verifiedRows(dir, path string, hits []hit, binaryOffset *int, c *counts, big, input int64) []row {
	name := path
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	f, fi, err := regfile.Open(regfile.OS{}, name) // replaced by a FIFO since rg read it: no block
	if err != nil {
		c.unreadable++
		return nil
	}
	defer f.Close()
	var content []byte // the file, or the prefix holding every hit, when read whole
	if size := fi.Size(); size <= big || hitsNeedWholeFile(f, hits) {
		prefix := min(size, hitsEnd(hits)+1) // +1: the byte after a final CR
		if size <= big {
			prefix = size
		}
		if prefix > input {
			c.unreadable++
			return nil
		}
		content = make([]byte, prefix)
		if _, err := io.ReadFull(io.NewSectionReader(f, 0, prefix), content); err != nil {
			c.unreadable++
			return nil
		}
	}
	// matches reports whether the file holds exactly h's bytes at h's
	// offset. rg ends a line without LF only at the end of the file; if the
	// file goes on (it grew since rg read it), that line was cut and is no
	// row.
	matches := func(h hit) bool {
		if h.offset < 0 {
			return false
		}
		end := h.offset + len(h.text)
		terminated := len(h.text) > 0 && h.text[len(h.text)-1] == '\n'
		if content != nil {
			return end <= len(content) && bytes.Equal(content[h.offset:end], h.text) &&
				(terminated || int64(end) == fi.Size())
		}
		buf := make([]byte, len(h.text)+1)
		n, _ := f.ReadAt(buf, int64(h.offset))
		return (n == len(h.text) || terminated && n == len(buf)) && bytes.Equal(buf[:len(h.text)], h.text)
	}
	var renumber *rowCursor // only for files with a lone CR
	if content != nil && hasLoneCR(content) {
		renumber = &rowCursor{content: content, num: 1}
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
		if renumber != nil {
			// Number rows by the project's rule: every row starting inside
			// the hit, counted from the file's own row starts.
			renumber.rowsIn(h.offset, h.offset+len(h.text), add)
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

// hitsEnd is the offset just past the last byte of any hit.
func hitsEnd(hits []hit) int64 {
	end := 0
	for _, h := range hits {
		end = max(end, h.offset+len(h.text))
	}
	return int64(end)
}

// rowCursor numbers content's rows by the project's row rule (retain)
// moving forward: rg reports a file's hits in order, so each file is
// scanned once, and nothing is kept per row.
type rowCursor struct {
	content    []byte
	num, start int // row num (1-based) starts at offset start
}

// rowsIn calls add for every row starting in [from, to).
func (c *rowCursor) rowsIn(from, to int, add func(num int, text []byte)) {
	if from < c.start { // out of order: count again from the top
		c.num, c.start = 1, 0
	}
	for r := range rows.All(c.content[c.start:]) {
		if c.start >= to {
			return
		}
		if c.start >= from {
			add(c.num, r.Text)
		}
		c.num++
		c.start += len(r.Text) + len(r.Term)
	}
}

// hitsNeedWholeFile reports whether a lone CR occurs up to the end of the
// last hit (so rg's line numbers must be recounted), reading in chunks.
func hitsNeedWholeFile(f *os.File, hits []hit) bool {
	r := io.NewSectionReader(f, 0, hitsEnd(hits)+1) // +1: the byte after a final CR
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
