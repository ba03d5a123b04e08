package jsts

import (
	"hpatch-router/worker/inspect/outline"
)

// members outlines the methods of a class whose body opens at token b:
// method definitions and signatures (abstract ones and overloads), named
// as written — identifier, #private, 'string', number or [computed] —
// with get, set, static, async and the TypeScript modifiers read as
// modifiers only when a name follows. A JavaScript member's span starts
// at its decorators, a TypeScript one's after them (as the grammars
// place them). Fields, static blocks and index signatures are skipped.
func (r *jsReader) members(b int, receiver string) {
	end := int(r.match[b])
	for j := b + 1; j < end; {
		if r.is(j, ";") {
			j++
			continue
		}
		start := j
		j = r.decorators(j)
		if r.ts {
			start = j
		}
		if r.is(j, "static") && r.is(j+1, "{") {
			j = r.skipGroup(j + 1)
			continue
		}
		for r.modifier(j) {
			j++
		}
		if r.is(j, "*") {
			j++
		}
		name := j
		j = r.step(j)
		nameEnd := j
		if r.is(j, "?", "!") {
			j++
		}
		j = r.typeParameters(j)
		if !r.is(j, "(") || name >= end {
			j = max(r.end(name, r.ts), start+1) // a field (or index signature), typed in TypeScript
			continue
		}
		if body, sigEnd := r.bodyOpen(r.skipGroup(j)); body >= 0 && body < end {
			j = r.skipGroup(body)
		} else {
			j = min(sigEnd, end)
		}
		r.res.Entries = append(r.res.Entries, outline.Entry{
			Kind: outline.KindMethod, Name: r.src[r.toks[name].start:r.toks[nameEnd-1].end], Receiver: receiver,
			NameLine: r.row(name), Start: r.row(start), End: r.last(max(j-1, start)),
		})
	}
}

// modifier reports whether token i modifies a member: one of the words,
// followed on the same line by what can name one.
func (r *jsReader) modifier(i int) bool {
	if !r.is(i, "static", "async", "get", "set", "public", "private", "protected", "readonly", "override",
		"declare", "abstract", "accessor") {
		return false
	}
	if r.nl(i + 1) {
		return false
	}
	switch r.kind(i + 1) {
	case 'n', 's', '1':
		return true
	}
	return r.is(i+1, "[", "*")
}

// typeParameters skips <…> at i (nested angle brackets counted).
func (r *jsReader) typeParameters(i int) int {
	if !r.is(i, "<") {
		return i
	}
	depth := 0
	for j := i; j < len(r.toks); j = r.step(j) {
		if r.is(j, ";") {
			return i // not type parameters
		}
		if depth += angleDelta(r.text(j)); depth <= 0 {
			return j + 1
		}
	}
	return i
}
