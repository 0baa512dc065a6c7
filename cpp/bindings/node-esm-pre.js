// Prepended to the ES6 glue (inside its factory) so one build loads in browsers, workers, bundlers
// and Node. Emscripten 3.1.6's glue has two Node problems in an ES module:
// - its Node branch uses require and __dirname, which ES modules lack;
// - it calls fetch whenever fetch exists, and Node 20's fetch cannot read a file path.
// Under Node we supply the first two and hide fetch, so the glue reads the .wasm with fs.
// Browsers keep fetch and streaming compilation. _scriptDir is the glue's import.meta.url.
var require, __dirname, fetch = globalThis.fetch;
if (typeof process == "object" && typeof process.versions == "object" && typeof process.versions.node == "string") {
  require = process.getBuiltinModule("module").createRequire(_scriptDir);
  __dirname = require("path").dirname(require("url").fileURLToPath(_scriptDir));
  fetch = undefined;
  if (!Module["locateFile"]) Module["locateFile"] = (path, dir) => dir + path;
}
// The threaded build's workers import the glue again: from this URL, as loaded (a bundler may
// have renamed it), rather than by its original name beside their own script.
if (!Module["mainScriptUrlOrBlob"]) Module["mainScriptUrlOrBlob"] = _scriptDir;
