// Computes greet.out from greet.in with node: node greet.mjs < greet.in >
// greet.out. The tool is the README's greet.
import { arg, serve } from "../tools.mjs";

serve([{
  name: "greet", title: "Greeter", description: "Greet someone by name", annotations: { readOnlyHint: true },
  args: [
    arg("name", "string", { description: "who to greet" }),
    arg("times", "integer", { description: "how many greetings", min: 1, max: 10, optional: true, def: 1 }),
    arg("tone", "string", { choices: ["warm", "formal"], optional: true, def: "warm" }),
  ],
  run: (a) => {
    if (a.name.trim() === "") return [`the name ${JSON.stringify(a.name)} is blank; ask for a name`, true];
    const greeting = a.tone === "formal" ? `Good day, ${a.name}.` : `Hello, ${a.name}!`;
    return [(greeting + "\n").repeat(a.times), false];
  },
}]);
