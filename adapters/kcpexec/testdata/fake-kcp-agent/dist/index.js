// A stand-in for the kcp-agent library, for testing sifu's Node runner:
// it exports the three functions the runner calls and echoes its inputs.
export function parseManifest(text, source) {
  if (text.startsWith("-")) throw new Error("manifest is not a YAML mapping");
  return { text, source };
}

export function plan(manifest, task, options) {
  if (task === "throw") throw new Error("planner failed");
  return {
    task, source: manifest.source, options,
    selected: [], skipped: [], federation: [],
    trust: { requiresAttestation: false, agentCanAttest: true },
    budget: { rateTier: "default" }, context: { approximate: false, unmeasured: 0 }, warnings: [],
  };
}

export async function assess(task, answer, units, options) {
  if (options.threshold > 1) throw new Error(`invalid threshold ${options.threshold} — expected 0..1`);
  const signals = [];
  if (options.evaluator) {
    try {
      signals.push(await options.evaluator({ task, answer, units }));
    } catch (e) {
      return { gate: "confidence", passed: false, score: 0, threshold: options.threshold, signals, detail: `evaluator failed: ${e.message}` };
    }
  }
  return { gate: "confidence", passed: true, score: 1, threshold: options.threshold, signals, detail: "ok" };
}
