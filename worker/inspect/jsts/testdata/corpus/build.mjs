// Generates plugins/shell.bundle.json from plugins/shell.mjs.
//
//   node plugins/build.mjs           write the bundle
//   node plugins/build.mjs --stdout  print it instead (used by the Go test
//                                    that detects a stale committed bundle)
//
// No npm dependencies. The output is deterministic: object keys keep their
// declaration order and nothing time- or host-dependent is written, so the
// same shell.mjs always yields the same bytes.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { INPUT_LIMIT, shell, hpatch, paramsSection } from "./shell.mjs";

const bundle = {
  input_limit: INPUT_LIMIT,
  tools: { shell, hpatch },
  params_section: paramsSection,
};
const text = JSON.stringify(bundle, null, 2) + "\n";

if (process.argv.includes("--stdout")) {
  process.stdout.write(text);
} else {
  const out = join(dirname(fileURLToPath(import.meta.url)), "shell.bundle.json");
  writeFileSync(out, text);
  const desc = Buffer.byteLength(shell.description, "utf8");
  const hp = Buffer.byteLength(hpatch.description, "utf8");
  console.log(`wrote ${out}: shell description ${desc} bytes, hpatch description ${hp} bytes`);
}
