// Built-in declaration of the model-visible `shell` and `hpatch` custom tools.
//
// This file is the single source of truth for what the model reads about
// them: the descriptions below are the model's only manual (no instruction
// file is installed, A11), and every byte is paid on every request, so they
// stay short and concrete. `node plugins/build.mjs` turns this module into
// plugins/shell.bundle.json, which the router embeds; edit here, then run
// `make bundle` and commit both files.

import { readFileSync } from "node:fs";

// INPUT_LIMIT is the largest shell input in UTF-8 bytes. The rendered
// command travels to Codex's shell as one argv string, and Linux caps one
// argv string at MAX_ARG_STRLEN = 131072 bytes including its NUL.
export const INPUT_LIMIT = 131071;

// Each line carries rules the model cannot infer, with one example per
// feature it cannot guess (template, params, rerun, private commands): what
// the model can infer (byte-exact bodies, inherited cwd and environment,
// the result's fields it reads anyway) is left out, as every byte is sent
// with every request.
const shellDescription = [
  `Run a program: the input is its text (UTF-8, at most ${INPUT_LIMIT} bytes; no JSON, quoting, code fences or patches: edit files with hpatch).`,
  "The first line may pick the interpreter: `#!python3` (a name on PATH), `#!/opt/py/bin/python3` or `#!/usr/bin/env -S python3 -u`; without one the input is bash (`#!sh`: POSIX sh). Never wrap code in `python3 -c`, `node -e`, `bash -c` or a heredoc: use a shebang.",
  "Directive lines may come next (first if there is no shebang):",
  "- `#!cmd=curl -fsSL URL | {.} | jq .`: run inside a command; `{.}` (once) is the script, which reads the curl output on stdin.",
  "- `#!params={\"workdir\":\"/tmp\",\"tty\":true}`: exec_command arguments (fields below) except cmd; `login` may only be false.",
  "Result: the exec_command result (exit_code, or session_id while still running) plus `retained`. Non-bash scripts and bash over 3 lines are kept 1 hour as `script_ref` \"@shell/<id>\": `hread @shell/<id>` shows its rows, the `hpatch` tool edits them, an input of only `#!script=@shell/<id>` reruns it.",
  "In bash, these commands print rows `LINE:HASH TEXT` (exit 3: output cut, the notice says how to narrow):",
  "- `hread PATH [START:END]`, `hread @shell/<id>`",
  "- `hgrep RG-ARGS...`: ripgrep, rows `\"PATH\":LINE:HASH TEXT`",
  "- `hsymbol def|refs PATH LINE:HASH SYMBOL [N]`: definition or references",
  "- `inspect_file PATH`: JSON outline, positions `LINE:HASH`",
].join("\n");

// The grammar (HPATCH_GRAMMAR) makes every call parse; this says what to
// write and the rules a grammar cannot: rows are cited as hread showed
// them before the edit, and a stale or overlapping target rejects all.
const hpatchDescription = [
  "Edit files by the rows hread shows: workspace files (`in PATH`, relative to the cwd) or retained scripts (`in @shell/<id>`), not both in one call.",
  "in PATH",
  "type TARGET VALUE   (replace the rows; VALUE \"\" deletes them)",
  "add DEST VALUE   (insert before DEST; EOF appends)",
  "After `in PATH`: `rm` deletes it, `mv DEST` renames it (edits may follow). `new PATH` then `type VALUE` creates a file of VALUE's rows, each ending with a line ending.",
  "TARGET is L:HASH, the inclusive L:HASH..L:HASH, or \"TEXT\" [COUNT]: the COUNT rows (default 1) containing TEXT. DEST is L:HASH, \"TEXT\" or EOF. PATH with blanks is a JSON string. VALUE is a JSON string (\\n for more lines) or raw lines between <<PATCH and a line PATCH. Every target cites the rows as they were before this edit; a stale hash or an overlap rejects the whole edit.",
  "Example:",
  "in src/app.py",
  "type 3:1f2e \"print(total)\"",
  "add EOF <<PATCH",
  "print(\"done\")",
  "PATCH",
].join("\n");

// shell is the free-form tool that replaces JavaScript + exec_command for
// running programs; the router turns each call into an `exec` carrier.
export const shell = {
  type: "custom",
  name: "shell",
  description: shellDescription,
  format: { type: "text" },
};

// HPATCH_GRAMMAR is plugins/hpatch.lark without its comment and blank
// lines: the API constrains every hpatch call to it, so the model cannot
// emit an edit that does not parse (retain.ParsePatch accepts the same
// language; retain/grammar_test.go checks both on every edit the tests know).
export const HPATCH_GRAMMAR = readFileSync(new URL("./hpatch.lark", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "" && !line.startsWith("//"))
  .join("\n") + "\n";

// hpatch edits workspace files and retained scripts. shell stays free-form text (REQ-SHELL-001).
export const hpatch = {
  type: "custom",
  name: "hpatch",
  description: hpatchDescription,
  format: { type: "grammar", syntax: "lark", definition: HPATCH_GRAMMAR },
};

// paramsSection frames the request-specific exec_command fields (all but
// cmd, with their comments) that the router appends to the shell
// description under a `#!params` heading. TypeScript fields are wrapped in
// an object type; a bullet-list shape is appended as it is.
export const paramsSection = {
  heading: "\n\n#!params fields (exec_command arguments except cmd):\n",
  ts_open: "```ts\n{\n",
  ts_close: "}\n```",
};
