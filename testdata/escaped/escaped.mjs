// Computes escaped.out from escaped.in with node: node escaped.mjs <
// escaped.in > escaped.out. The tools are TestEscapedNames' catalogue:
// "long" takes an argument whose name is 128 bytes, the longest a
// catalogue allows, "tone" a choice; both return what they read.
import { arg, serve } from "../tools.mjs";

const long = "abcdefgh".repeat(16);
serve([
  { name: "long", description: "Return the long-named argument", args: [arg(long, "string")], run: (a) => [a[long], false] },
  { name: "tone", description: "Return the tone", args: [arg("tone", "string", { choices: ["warm", "formal"] })], run: (a) => [a.tone, false] },
]);
