package rows

import (
	"strconv"

	"hpatch-router/jsonline"
)

// QuotePath is a file's path as a row of a multi-file listing prints it
// (hgrep, hsymbol): a JSON string, HTML characters kept, so any name reads
// back exactly, on one line.
func QuotePath(path string) string { return jsonline.String(path) }

// AppendRow appends one listing row `QUOTED:LINE:HASH TEXT\n` to dst:
// row num of the file whose QuotePath is quoted, text without its
// terminator. Without the path prefix it is the row as hread prints it.
func AppendRow(dst []byte, quoted string, num int, text []byte) []byte {
	dst = append(dst, quoted...)
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, int64(num), 10)
	dst = append(dst, ':')
	dst = AppendHash(dst, text)
	dst = append(dst, ' ')
	dst = append(dst, text...)
	return append(dst, '\n')
}
