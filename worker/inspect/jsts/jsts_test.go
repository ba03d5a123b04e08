package jsts

import (
	"path/filepath"
	"slices"
	"testing"

	"hpatch-router/worker/inspect/internal/outlinetest"
	"hpatch-router/worker/inspect/outline"
)

// language is the dialect inspect_file gives path, by extension.
func language(path string) string {
	switch filepath.Ext(path) {
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	}
	return "javascript"
}

// summary outlines src as path's dialect and renders its entries
// (outlinetest.Summary).
func summary(t *testing.T, path, src string) ([]string, bool) {
	t.Helper()
	data := []byte(src)
	res, err := Outline(language(path), data, outline.NewLines(data))
	if err != nil {
		t.Fatal(err)
	}
	return outlinetest.Summary(res.Entries), res.ParseComplete
}

// The expectations are what tree-sitter's JavaScript, TypeScript and TSX
// grammars, which inspect_file used before, gave for each input — but the
// last: where a bracket is never closed tree-sitter dropped the
// declaration around it, and here it runs to the end of the file.
func TestScriptOutline(t *testing.T) {
	tests := []struct {
		name, path, src string
		complete        bool
		want            []string
	}{
		{"imports: the module string, side effects and types too", "f.ts",
			"import fs from \"fs\";\nimport { a, b as c } from './mod'\nimport * as ns from \"ns\";\nimport \"side-effect\";\nimport type { T } from \"types\";\nexport * from \"re\";\nexport { x } from \"y\";\n",
			true, []string{"import fs@1-1", "import ./mod@2-2", "import ns@3-3", "import side-effect@4-4", "import types@5-5"}},
		{"declarators: const is constant, let/var variable, a function value a function", "f.ts",
			"const A = 1, b = () => 2, c2 = function () {}, d = async () => {}, e = function* () {};\nlet f;\nvar g = 3\nvar iife = function () {}(), obj = { a: 1 }\nconst { o1 } = obj, [a1] = arr;\nconst m = new Map<string, number[]>(), n = <T,>(x: T) => x;\n",
			true, []string{"constant A@1-1", "function b@1-1", "function c2@1-1", "function d@1-1", "function e@1-1", "variable f@2-2", "variable g@3-3", "variable iife@4-4", "variable obj@4-4", "constant m@6-6", "function n@6-6"}},
		{"export and declare are looked through; a span starts with them", "f.ts",
			"export default function main() {}\nexport default class {}\nexport const h = 1;\nexport function i(): void {}\nexport async function j() {}\nexport function* k() {}\ndeclare function decl(): void;\ndeclare const dc: number;\ndeclare module \"m\" { export const z: number; }\nnamespace NS { export const q = 1; }\nexport declare const dd: <T, U = any>() => T\nexport\nconst late = 1\n",
			true, []string{"function main@1-1", "constant h@3-3", "function i@4-4", "function j@5-5", "function k@6-6", "function decl@7-7", "constant dc@8-8", "constant dd@11-11", "constant late@13-13"}},
		{"overload signatures without semicolons end at the line break", "f.ts",
			"export function over<T>(a: T): Promise<T>\nexport function over(a: any): unknown\nexport function over(a: any) { return a }\ntype Fn = () => void\ntype Obj<T> = { [K in keyof T]: T[K] }\ninterface I { m(): void }\nenum E { A }\nconst enum CE { X }\n",
			true, []string{"function over@1-1", "function over@2-2", "function over@3-3", "type Fn@4-4", "type Obj@5-5", "type I@6-6", "type E@7-7", "type CE@8-8"}},
		{"class members: methods and signatures, fields skipped, TypeScript decorators outside the span", "f.ts",
			"export abstract class Abs<T> extends Base<{ x: 1 }> implements I {\n  @dec() prop = 1;\n  #priv: Map<string, Array<number>>\n  static s() {}\n  private async m1(): Promise<void> {}\n  get g1() { return 1; }\n  set g1(v) {}\n  *gen() {}\n  [Symbol.iterator]() {}\n  'quoted'() {}\n  42() {}\n  abstract am(): void;\n  constructor(private x: number) { super(); }\n  over(a: string): void;\n  over(a: any) {}\n  @decorated\n  decoMethod() {}\n  pick<M extends Exact<{ [k in keyof T]?: true }, M>>(m: M) {}\n  static { init(); }\n  get() {}\n  static = 1\n}\n",
			true, []string{"class Abs@1-22", "method s@4-4 recv=Abs", "method m1@5-5 recv=Abs", "method g1@6-6 recv=Abs", "method g1@7-7 recv=Abs", "method gen@8-8 recv=Abs", "method [Symbol.iterator]@9-9 recv=Abs", "method 'quoted'@10-10 recv=Abs", "method 42@11-11 recv=Abs", "method am@12-12 recv=Abs", "method constructor@13-13 recv=Abs", "method over@14-14 recv=Abs", "method over@15-15 recv=Abs", "method decoMethod@17-17 recv=Abs", "method pick@18-18 recv=Abs", "method get@20-20 recv=Abs"}},
		{"JavaScript: decorators start the member's span, regex and template literals hide braces, ASI", "f.js",
			"const re = /[/{]}/g, s = `template ${ `nested ${1}` } {`;\nclass A {\n  @dec\n  m() {}\n  static #p() {}\n  async *ag() {}\n  field = () => {}\n}\nlet x = a\n/ b / c\nconst y = 1\n;(function iife() {})()\nfunction f() {\n  return /regex{/.test(s)\n}\nlet\nz = 1\ninterface\nI\n",
			true, []string{"constant re@1-1", "constant s@1-1", "class A@2-8", "method m@3-4 name@4 recv=A", "method #p@5-5 recv=A", "method ag@6-6 recv=A", "variable x@9-10", "constant y@11-12", "function f@13-15"}},
		{"JSX: text, attributes and expressions hide quotes and braces", "f.jsx",
			"const App = () => (\n  <div className=\"app\" onClick={() => { if (a < b) return; }}>\n    it's {`t ${x}`} text // not a comment\n    <Child {...props} render={<Inner />} />\n    <><a.b.c x='1'/></>\n  </div>\n);\nconst lt = a < b, gt = c > d;\nfunction Comp() { return <li>{'}'}</li>; }\n",
			true, []string{"function App@1-7", "constant lt@8-8", "constant gt@8-8", "function Comp@9-9"}},
		{"TSX: JSX and type syntax, a generic arrow is no element", "f.tsx",
			"interface Props { x: number }\nconst generic = <T,>(x: T): T => x;\nfunction typed(p: Props): JSX.Element { return <div>{p.x}</div>; }\nconst cast = value as unknown as string;\n",
			true, []string{"type Props@1-1", "function generic@2-2", "function typed@3-3", "constant cast@4-4"}},
		{"control statements and labels are read through to the next declaration", "f.js",
			"if (a) b()\nelse { c() }\nfor (const k of o) { }\nwhile (x) x--\ndo { } while (y)\ntry { } catch { } finally { }\nswitch (v) { case 1: break }\nlabel: for (;;) {}\nconst after = 1\n",
			true, []string{"constant after@9-9"}},
		{"unclosed brackets end at the end of the file", "f.ts",
			"const a = 1\nfunction f() {\n  const b = (\n",
			false, []string{"constant a@1-1", "function f@2-3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, complete := summary(t, tc.path, tc.src)
			if !slices.Equal(got, tc.want) || complete != tc.complete {
				t.Errorf("outline of %q\n got %q complete %v\nwant %q complete %v", tc.src, got, complete, tc.want, tc.complete)
			}
		})
	}
}
