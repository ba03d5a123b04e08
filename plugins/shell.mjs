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

const shellDescription = [
  "Run a program. The input is the program text itself (not JSON, not quoted, no code fences).",
  "The first line may pick the interpreter:",
  "- `#!python3` or `#! python3`: python3 from PATH",
  "- `#!/usr/bin/env -S python3 -u`: python3 with -u",
  "- `#!/opt/py/bin/python3`: that exact path",
  "- no shebang: bash (`#!sh` for POSIX sh)",
  "The body after the shebang line runs byte-exact as the script source; stdin, cwd and environment are inherited. A lone simple external command without shebang runs directly.",
  "Optional directive lines at the top (after the shebang, if any), in any order:",
  "- `#!cmd=TEMPLATE`: a shell command with exactly one `{.}` where the script runs, e.g. `#!cmd=curl -fsSL URL | {.} | jq .` (the curl output becomes the script's stdin).",
  "- `#!params={\"workdir\":\"/tmp\",\"tty\":true}`: JSON object of exec_command arguments except cmd (fields below); `login`, if given, must be false.",
  "Do not wrap code in `python3 -c`, `node -e`, `bash -c` or heredocs: use a shebang.",
  "Result: the complete exec_command result (output, exit_code, or session_id while still running) plus `retained`; retained scripts also get `script_ref` \"@shell/<id>\". Non-bash scripts and bash scripts over 3 lines are retained for 1 hour: read with `hread @shell/<id>`, edit with the `hpatch` tool, rerun with an input that is only `#!script=@shell/<id>`.",
  "Commands available inside bash scripts (rows cite lines as LINE:HASH):",
  "- `hread PATH [START:END]`, `hread @shell/<id>`: rows `LINE:HASH TEXT`",
  "- `hgrep RG-ARGS...`: ripgrep search, rows `\"PATH\":LINE:HASH TEXT`",
  "- `hsymbol def|refs PATH LINE:HASH SYMBOL [N]`: definition or references of SYMBOL on that line, as rows",
  "- `inspect_file PATH`: JSON outline of the file, positions as `LINE:HASH`",
  `Input: UTF-8, at most ${INPUT_LIMIT} bytes, no NUL.`,
].join("\n");

const hpatchDescription = [
  "Edit a retained script (@shell/<id>) using LINE:HASH rows from `hread @shell/<id>`. Input:",
  "in @shell/<id>",
  "then one operation per line:",
  "- `type TARGET VALUE`: replace the targeted line(s) with VALUE (may hold several lines); the empty VALUE `\"\"` deletes them",
  "- `add DEST VALUE`: insert VALUE as whole line(s) before DEST; `add EOF VALUE` appends",
  "TARGET is `L:HASH` or the inclusive range `L:HASH..L:HASH`; DEST is `L:HASH` or `EOF`.",
  "VALUE is a JSON string, or a heredoc taken raw: `<<PATCH`, the lines, then a line `PATCH`.",
  "All targets are verified against the same baseline before anything changes; a stale hash or overlapping targets reject the whole edit. The report shows the changed rows as `LINE:HASH TEXT` with one row of context. Workspace files are not edited here.",
  "Example:",
  "in @shell/call_abc",
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

// hpatch edits retained scripts. shell stays free-form text (REQ-SHELL-001).
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
