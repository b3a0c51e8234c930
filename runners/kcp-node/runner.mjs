#!/usr/bin/env node
// sifu's KCP planner runner for kcp-agent: one long-lived Node process that
// answers the planner runner protocol (docs/kcp-runner.md in the sifu
// repository) by calling an installed kcp-agent library in process, so a
// check costs a function call instead of a Node start-up.
//
// It ships no part of kcp-agent: install kcp-agent yourself, then point the
// runner at it, in this order of preference:
//
//   node runner.mjs --module <kcp-agent package directory or entry file>
//   KCP_AGENT_MODULE=<same> node runner.mjs
//   node runner.mjs        (resolves "kcp-agent" from the current directory,
//                           then from this file's directory)
//
// Requests and answers are one JSON object per line on stdin and stdout;
// requests are answered one at a time, in order. The process ends when
// stdin closes or after a stop request. Diagnostics go to stderr.

import { createRequire } from "node:module";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const PROTOCOL = 1;

function fail(message) {
  process.stderr.write(`kcp-node runner: ${message}\n`);
  process.exit(2);
}

// entryOf turns a package directory into the file its "exports" (or "main")
// names; a file is its own entry.
function entryOf(location) {
  const path = resolve(location);
  if (!existsSync(path)) fail(`${location} does not exist`);
  if (!statSync(path).isDirectory()) return path;
  const manifestPath = join(path, "package.json");
  if (!existsSync(manifestPath)) fail(`${location} is a directory without a package.json`);
  const pkg = JSON.parse(readFileSync(manifestPath, "utf8"));
  let target = pkg.exports;
  if (target && typeof target === "object" && !Array.isArray(target)) target = target["."] ?? target;
  if (target && typeof target === "object") target = target.import ?? target.default;
  if (typeof target !== "string") target = pkg.main ?? "index.js";
  return join(path, target);
}

// locate finds the kcp-agent entry file.
function locate(argv) {
  const at = argv.indexOf("--module");
  if (at >= 0) {
    if (!argv[at + 1]) fail("--module needs a path");
    return entryOf(argv[at + 1]);
  }
  if (process.env.KCP_AGENT_MODULE) return entryOf(process.env.KCP_AGENT_MODULE);
  const here = dirname(fileURLToPath(import.meta.url));
  for (const base of [join(process.cwd(), "noop.js"), join(here, "noop.js")]) {
    try {
      return createRequire(base).resolve("kcp-agent");
    } catch {
      // try the next base
    }
  }
  fail('cannot find kcp-agent: install it (npm install kcp-agent), or pass --module <path> or set KCP_AGENT_MODULE');
}

// versionOf reads the version from the package.json above the entry file.
function versionOf(entry) {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8"));
      if (pkg.name) return { name: pkg.name, version: pkg.version ?? "unknown", homepage: pkg.homepage };
    }
    if (dirname(dir) === dir) return { name: "kcp-agent", version: "unknown" };
  }
}

const entry = locate(process.argv.slice(2));
const lib = await import(pathToFileURL(entry).href);
for (const name of ["plan", "parseManifest", "assess"]) {
  if (typeof lib[name] !== "function") fail(`${entry} exports no ${name}() function; is it kcp-agent?`);
}
const pkg = versionOf(entry);

const message = (e) => (e instanceof Error ? e.message : String(e));

// Each handler returns an answer without its id: {result}, {refusal} or
// {error}. A refusal is what the library threw: the implementation's own
// answer to the input.
const handlers = {
  hello(req) {
    if (req.protocol !== PROTOCOL) return { error: `this runner speaks protocol ${PROTOCOL}` };
    const result = { protocol: PROTOCOL, implementation: pkg.name, version: pkg.version, language: "javascript", ops: ["plan", "assess", "bench"] };
    if (pkg.homepage) result.homepage = pkg.homepage;
    return { result };
  },
  plan(req) {
    if (typeof req.manifest !== "string" || typeof req.task !== "string") return { error: "a plan request needs manifest and task strings" };
    let manifest;
    try {
      manifest = lib.parseManifest(req.manifest, req.source);
    } catch (e) {
      return { refusal: message(e) };
    }
    try {
      return { result: lib.plan(manifest, req.task, req.options ?? {}) };
    } catch (e) {
      return { refusal: message(e) };
    }
  },
  // bench times plan() on a manifest parsed once: warmup untimed plans,
  // then batches of batch plans, each batch's time divided by its plans.
  bench(req) {
    const { warmup, batches, batch } = req;
    if (![warmup, batches, batch].every(Number.isInteger) || batches < 1 || batch < 1 || warmup < 0) {
      return { error: "a bench request needs integer warmup ≥ 0, batches ≥ 1 and batch ≥ 1" };
    }
    let manifest;
    try {
      manifest = lib.parseManifest(req.manifest, req.source);
    } catch (e) {
      return { refusal: message(e) };
    }
    const options = req.options ?? {};
    try {
      for (let i = 0; i < warmup; i++) lib.plan(manifest, req.task, options);
      const ns = [];
      for (let b = 0; b < batches; b++) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < batch; i++) lib.plan(manifest, req.task, options);
        ns.push(Number(process.hrtime.bigint() - start) / batch);
      }
      return { result: { ns_per_plan: ns } };
    } catch (e) {
      return { refusal: message(e) };
    }
  },
  async assess(req) {
    const options = { ...(req.options ?? {}) };
    if (req.evaluatorError !== undefined) {
      const text = String(req.evaluatorError);
      options.evaluator = async () => {
        throw new Error(text);
      };
    } else if (req.evaluator) {
      const judged = { source: "evaluator", ...req.evaluator };
      options.evaluator = async () => judged;
    }
    try {
      return { result: await lib.assess(req.task, req.answer, req.units ?? [], options) };
    } catch (e) {
      return { refusal: message(e) };
    }
  },
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    process.stdout.write(JSON.stringify({ id: null, error: `the line is not a runner request: ${message(e)}` }) + "\n");
    continue;
  }
  const id = req && typeof req === "object" ? (req.id ?? null) : null;
  if (req?.op === "stop") {
    process.stdout.write(JSON.stringify({ id, result: {} }) + "\n");
    break;
  }
  const handler = Object.hasOwn(handlers, req?.op) ? handlers[req.op] : undefined;
  let answer;
  try {
    answer = handler ? await handler(req) : { error: `unknown op ${JSON.stringify(req?.op)}: the ops are hello, plan, assess, bench and stop` };
  } catch (e) {
    answer = { error: `the runner failed: ${message(e)}` };
  }
  process.stdout.write(JSON.stringify({ id, ...answer }) + "\n");
}
