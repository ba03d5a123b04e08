package retain

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"hash"
)

// HashLen is the length of a row hash: 4 hex digits.
const HashLen = 4

// RowHasher computes row hashes (Hash) for many rows, about a third
// faster than Hash on short lines, for callers that hash every row of a
// file (hread). One RowHasher is not safe for concurrent use.
//
// sha256.Sum256 spends as long around a one-block message as on the
// block itself: it copies the line into the digest's buffer, copies the
// whole digest to pad it, and encodes all 32 bytes. RowHasher pads the
// line's last block itself, so the digest compresses the line and the
// padding straight from memory, and it reads the 2 bytes a row keeps out
// of the digest's state (encoding.BinaryAppender: "sha\x03", then the
// eight state words big-endian, which after the padding block are the
// sum). The state layout is checked against sha256.Sum256 when a
// RowHasher is made; if it ever differs, RowHasher uses Sum256.
type RowHasher struct {
	digest stateHash // nil: the state cannot be read; use Sum256
	pad    [2 * sha256.BlockSize]byte
	state  []byte
}

// stateHash is a SHA-256 digest whose running state can be read.
type stateHash interface {
	hash.Hash
	encoding.BinaryAppender
}

// stateMagic starts the binary state of a SHA-256 digest.
const stateMagic = "sha\x03"

// NewRowHasher returns a RowHasher.
func NewRowHasher() *RowHasher {
	h := &RowHasher{state: make([]byte, 0, 128)}
	if d, ok := sha256.New().(stateHash); ok {
		h.digest = d
		// A line of one block and one whose padding takes a second.
		for _, line := range [][]byte{nil, []byte("a row long enough that its padding needs a second block: 60b")} {
			if sum := sha256.Sum256(line); h.Sum(line) != RowSum(sum[:2]) {
				h.digest = nil
				break
			}
		}
	}
	return h
}

// RowSum is what a row hash keeps of SHA-256: its first 2 bytes.
type RowSum [2]byte

// Put writes the row hash of s, 4 lowercase hex digits, into dst.
func (s RowSum) Put(dst *[HashLen]byte) {
	const hexDigits = "0123456789abcdef"
	dst[0], dst[1] = hexDigits[s[0]>>4], hexDigits[s[0]&15]
	dst[2], dst[3] = hexDigits[s[1]>>4], hexDigits[s[1]&15]
}

// Sum returns the first 2 bytes of SHA-256(line).
func (h *RowHasher) Sum(line []byte) RowSum {
	if h.digest == nil {
		sum := sha256.Sum256(line)
		return RowSum(sum[:2])
	}
	d := h.digest
	d.Reset()
	whole := len(line) &^ (sha256.BlockSize - 1)
	if whole > 0 {
		d.Write(line[:whole])
	}
	// SHA-256 padding: 0x80, zeros, then the length in bits in the last
	// 8 bytes of the block; a tail of 56 bytes or more pushes them into a
	// second block.
	n := copy(h.pad[:], line[whole:])
	end := sha256.BlockSize
	if n >= sha256.BlockSize-8 {
		end = 2 * sha256.BlockSize
	}
	h.pad[n] = 0x80
	clear(h.pad[n+1 : end-8])
	binary.BigEndian.PutUint64(h.pad[end-8:end], uint64(len(line))*8)
	d.Write(h.pad[:end])
	state, err := d.AppendBinary(h.state[:0])
	h.state = state
	if err != nil || len(state) < len(stateMagic)+2 || string(state[:len(stateMagic)]) != stateMagic {
		sum := sha256.Sum256(line)
		return RowSum(sum[:2])
	}
	return RowSum(state[len(stateMagic):])
}
