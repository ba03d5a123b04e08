package jsonline

import (
	"bytes"
	"encoding/json"
)

// Marshal is v as one line of JSON text, HTML characters kept.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// String is s as a JSON string, HTML characters kept: any text reads back
// exactly, on one line. A byte that is not UTF-8 is written as \ufffd,
// as encoding/json writes it. The result is also a JavaScript string
// literal (U+2028 and U+2029 are escaped), so a carrier can hold it.
func String(s string) string {
	b, _ := Marshal(s) // a string always encodes
	return string(b)
}
